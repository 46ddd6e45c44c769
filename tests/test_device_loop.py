"""iterations_per_loop: N steps per Session.run, with exact step counts and clean shutdown."""

import threading
import time

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn, linear_sgd_step, make_data, read_scalars
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig


class StepRecorder(tf.compat.v1.train.SessionRunHook):
    """Reads the global step after every Session.run."""

    def begin(self):
        self.steps = []
        self._gs = tf.compat.v1.train.get_global_step()

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_context.session.run(self._gs)))


def _estimator(model_dir, iterations, **config):
    return NPUEstimator(linear_model_fn(), config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=model_dir, **config),
        params={"host_logdir": model_dir + "/host"})


def _host_threads():
    return [t for t in threading.enumerate() if t.name == "npu_bridge-host-call"]


def test_steps_not_a_multiple_of_n_end_exactly_and_hooks_see_n_per_run(tmp_model_dir):
    recorder = StepRecorder()
    est = _estimator(tmp_model_dir, 7)
    est.train(dataset_input_fn(), steps=30, hooks=[recorder])
    assert recorder.steps == [7, 14, 21, 28, 30]
    assert est.get_variable_value("global_step") == 30


def test_max_steps_and_restart_continue_the_count(tmp_model_dir):
    _estimator(tmp_model_dir, 7).train(dataset_input_fn(), max_steps=17)
    recorder = StepRecorder()
    est = _estimator(tmp_model_dir, 7)  # a new estimator restores from the checkpoint
    est.train(dataset_input_fn(), max_steps=40, hooks=[recorder])
    assert recorder.steps == [24, 31, 38, 40]
    assert est.get_variable_value("global_step") == 40
    records = read_scalars(tmp_model_dir + "/host", "host_loss")
    assert sorted(records) == list(range(1, 41))
    assert all(len(v) == 1 for v in records.values())


def test_checkpoints_land_on_save_checkpoints_steps(tmp_model_dir):
    est = _estimator(tmp_model_dir, 7, save_checkpoints_steps=10)
    est.train(dataset_input_fn(), steps=25)
    state = tf.train.get_checkpoint_state(tmp_model_dir)
    saved = sorted(int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths)
    assert saved == [0, 10, 20, 25]  # the stock saver also writes step 0 at start


def test_finite_input_ending_inside_a_loop(tmp_model_dir):
    est = _estimator(tmp_model_dir, 5)
    est.train(dataset_input_fn(n=64, repeat=False))  # 16 batches, loop of 5: ends mid-loop
    assert est.get_variable_value("global_step") == 16
    records = read_scalars(tmp_model_dir + "/host", "host_loss")
    assert sorted(records) == list(range(1, 17))
    assert tf.train.latest_checkpoint(tmp_model_dir).endswith("-16")
    assert not _host_threads()


def test_loop_gives_the_same_variables_as_single_steps(tmp_path):
    """Batch norm, Adam slots and tf.compat.v1 layers inside the loop, created once."""

    def model_fn(features, labels, mode):
        h = tf.compat.v1.layers.dense(features, 8, activation=tf.nn.relu,
                                      kernel_initializer=tf.compat.v1.constant_initializer(0.1))
        h = tf.compat.v1.layers.batch_normalization(h, training=True)
        pred = tf.compat.v1.layers.dense(h, 1, kernel_initializer=tf.compat.v1.constant_initializer(0.2))
        loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
        with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
            train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step())
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    results = {}
    for n in (1, 10):
        est = NPUEstimator(model_fn, config=NPURunConfig(
            iterations_per_loop=n, model_dir=str(tmp_path / str(n))))
        est.train(dataset_input_fn(), steps=20)
        results[n] = {name: est.get_variable_value(name) for name in est.get_variable_names()}
    assert sorted(results[1]) == sorted(results[10])
    assert "batch_normalization/moving_mean" in results[10]
    assert not any(name.endswith("_1/kernel") and "dense_1" not in name for name in results[10])
    for name, value in results[1].items():
        np.testing.assert_allclose(results[10][name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def _failing_host_model_fn(fail_at):
    def model_fn(features, labels, mode):
        loss, gs, train_op = linear_sgd_step(features, labels)

        def host_fn(step):
            return [tf.debugging.assert_less(step, tf.constant(fail_at, tf.int64),
                                             message="host_fn refused step")]
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=(host_fn, [gs]))
    return model_fn


@pytest.mark.parametrize("iterations", [1, 50])
def test_host_fn_error_ends_train_with_that_error(tmp_model_dir, iterations):
    est = NPUEstimator(_failing_host_model_fn(12), config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=tmp_model_dir))
    start = time.time()
    with pytest.raises(tf.errors.InvalidArgumentError, match="host_fn refused step"):
        est.train(dataset_input_fn(), steps=100000)
    assert time.time() - start < 30
    assert not _host_threads()


def test_keyboard_interrupt_leaves_no_thread(tmp_model_dir):
    class Interrupt(tf.compat.v1.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            raise KeyboardInterrupt()

    with pytest.raises(KeyboardInterrupt):
        _estimator(tmp_model_dir, 10).train(dataset_input_fn(), steps=100, hooks=[Interrupt()])
    assert not _host_threads()


def test_tensor_input_falls_back_to_one_step_per_run(tmp_model_dir):
    x, y = make_data(8)

    def input_fn():
        return tf.constant(x[:4]), tf.constant(y[:4])

    recorder = StepRecorder()
    est = _estimator(tmp_model_dir, 5)
    est.train(input_fn, steps=6, hooks=[recorder])
    assert recorder.steps == [1, 2, 3, 4, 5, 6]
    assert sorted(read_scalars(tmp_model_dir + "/host", "host_loss")) == list(range(1, 7))


def test_eval_loop_matches_single_step_eval(tmp_path):
    results = {}
    for n in (1, 3):
        est = _estimator(str(tmp_path / str(n)), n)
        est.train(dataset_input_fn(), steps=8)
        results[n] = est.evaluate(dataset_input_fn(n=44, repeat=False))
    assert results[1].keys() == results[3].keys()
    for key in results[1]:
        assert results[3][key] == pytest.approx(results[1][key], rel=1e-6)


@pytest.mark.parametrize("iterations", [1, 10])
def test_host_fn_building_no_op_still_drains_every_record(tmp_model_dir, iterations):
    """A fn that returns [] (nothing to run) must not stall the device on a full queue."""

    def model_fn(features, labels, mode):
        loss, gs, train_op = linear_sgd_step(features, labels)
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                host_call=(lambda step: [], [gs]))

    est = NPUEstimator(model_fn, config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=tmp_model_dir))
    steps = 2500  # more records than the queue holds
    est.train(dataset_input_fn(), steps=steps)
    assert est.get_variable_value("global_step") == steps


def test_loss_logging_stays_step_based_under_the_loop(tmp_model_dir):
    import logging
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler = Collect()
    logger = tf.get_logger()
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        _estimator(tmp_model_dir, 10, log_step_count_steps=20).train(dataset_input_fn(), steps=60)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    logged = [int(m.split("step = ")[1].split()[0]) for m in records
              if m.startswith("loss = ") and "step = " in m]
    assert logged == [10, 20, 40, 60]


class FetchEachRun(tf.compat.v1.train.SessionRunHook):
    """A user hook holding model tensors, as training_hooks often do."""

    def __init__(self, tensors):
        self.tensors = tensors
        self.values = []

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self.tensors)

    def after_run(self, run_context, run_values):
        self.values.append(run_values.results)


def test_model_fn_hooks_fetch_the_last_step_of_each_run(tmp_model_dir):
    from conftest import reference_losses
    hooks = {}

    def model_fn(features, labels, mode):
        loss, _, train_op = linear_sgd_step(features, labels, bias=True)
        hooks["fetch"] = FetchEachRun({"loss": loss})
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[
            hooks["fetch"], tf.compat.v1.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)])

    est = NPUEstimator(model_fn, config=NPURunConfig(iterations_per_loop=5,
                                                     model_dir=tmp_model_dir))
    est.train(dataset_input_fn(), steps=12)
    expected = reference_losses(12)
    got = [v["loss"] for v in hooks["fetch"].values]
    assert got == pytest.approx([expected[4], expected[9], expected[11]], rel=1e-4)
