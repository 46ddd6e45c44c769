"""Records reach disk while training runs: within about a second, not a block of 64 later."""

import time

import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn, read_scalars
from npu_bridge.npu_init import NPUEstimator, NPURunConfig


class LookAtDisk(tf.compat.v1.train.SessionRunHook):
    """After the run that ends at ``step``, waits 2.5 s and notes what is on disk."""

    def __init__(self, logdir, step):
        self._logdir, self._step = logdir, step
        self.seen = None

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if self.seen is None and run_values.results + 10 >= self._step:
            step = run_context.session.run(self._global_step)
            time.sleep(2.5)
            self.seen = (step, sorted(read_scalars(self._logdir, "host_loss")))


def test_newest_record_on_disk_is_the_last_finished_step(tmp_model_dir):
    host_dir = tmp_model_dir + "/host"
    look = LookAtDisk(host_dir, 30)
    est = NPUEstimator(linear_model_fn(), config=NPURunConfig(
        iterations_per_loop=10, model_dir=tmp_model_dir, save_checkpoints_steps=1000),
        params={"host_logdir": host_dir})
    est.train(dataset_input_fn(), steps=100, hooks=[look])
    step, on_disk = look.seen
    assert step >= 30
    assert on_disk == list(range(1, step + 1))  # nothing held back while the device idles
