"""One training process per model_dir, and checkpoints that do not fit the model fail first."""

import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn
from npu_bridge.core.model_dir_lock import ModelDirBusyError
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAINER = os.path.join(ROOT, "tests", "trainers", "slow_host_train.py")


def _dense_model_fn(features, labels, mode):
    """The trainer's model (one dense layer on 3 features), to train or evaluate its model_dir."""
    pred = tf.compat.v1.layers.dense(features, 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


class _Input(object):
    """The trainer's input_fn, remembering whether anything asked for it."""

    called = False

    def __call__(self):
        self.called = True
        x = np.random.RandomState(0).rand(64, 3).astype("float32")
        return tf.data.Dataset.from_tensor_slices(
            (x, x.sum(axis=1, keepdims=True))).batch(8).repeat()


def _holder_pid(model_dir):
    try:
        with open(os.path.join(model_dir, ".npu_bridge", "train.lock")) as f:
            fields = dict(item.split("=", 1) for item in f.read().split() if "=" in item)
        return int(fields["pid"])
    except (OSError, KeyError, ValueError):
        return None


@pytest.mark.timeout(150)
def test_a_second_process_fails_at_once_and_a_killed_holder_blocks_nothing(tmp_path):
    model_dir = str(tmp_path / "md")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="2")
    holder = subprocess.Popen(  # trains until killed (a slow host_call keeps it busy)
        [sys.executable, TRAINER, model_dir, "100000", "10", "0.05", "100"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (
                _holder_pid(model_dir) == holder.pid and tf.train.latest_checkpoint(model_dir)):
            assert holder.poll() is None, "the holder exited with %s" % holder.returncode
            time.sleep(0.2)
        assert _holder_pid(model_dir) == holder.pid
        est = NPUEstimator(_dense_model_fn, config=NPURunConfig(
            model_dir=model_dir, iterations_per_loop=5, log_step_count_steps=None))
        second = _Input()
        with pytest.raises(ModelDirBusyError) as busy:
            est.train(second, steps=5)
        message = str(busy.value)
        assert repr(model_dir) in message, message
        assert ("process %d on host %s" % (holder.pid, socket.gethostname())) in message, message
        assert not second.called  # refused before building anything
        # Evaluating beside a training process is allowed (a separate evaluator).
        assert est.evaluate(_Input(), steps=2)["global_step"] >= 0
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
        start = int(est.get_variable_value("global_step"))
        est.train(_Input(), steps=5)  # the dead holder's lock went with it
        assert int(est.get_variable_value("global_step")) == start + 5
        assert _holder_pid(model_dir) == os.getpid()
    finally:
        if holder.poll() is None:
            os.killpg(holder.pid, signal.SIGKILL)
            holder.wait()


def _width_model_fn(width):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [4, width])
        pred = tf.reduce_sum(tf.matmul(features, w), axis=1, keepdims=True)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return NPUEstimatorSpec(mode, predictions={"y": pred})
        loss = tf.reduce_mean(tf.square(pred - labels))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def test_a_checkpoint_of_other_shapes_is_refused_naming_the_variable(tmp_path):
    model_dir = str(tmp_path / "md")
    config = NPURunConfig(model_dir=model_dir, iterations_per_loop=2, log_step_count_steps=None)
    NPUEstimator(_width_model_fn(8), config=config).train(dataset_input_fn(), steps=2)
    wider = NPUEstimator(_width_model_fn(16), config=config)
    wrong = r"w: \[4, 8\] in the checkpoint, \[4, 16\] in the model"
    with pytest.raises(ValueError, match=wrong):
        wider.train(dataset_input_fn(), steps=2)
    assert tf.train.latest_checkpoint(model_dir).endswith("model.ckpt-2")  # nothing trained
    assert tf.train.load_variable(model_dir, "w").shape == (4, 8)
    with pytest.raises(ValueError, match=wrong):
        wider.evaluate(dataset_input_fn(), steps=1)
    with pytest.raises(ValueError, match=wrong):
        next(wider.predict(dataset_input_fn()))
    # warm_start_from has its own check in TensorFlow: it names both shapes too.
    warm = NPUEstimator(_width_model_fn(16), config=config.replace(
        model_dir=str(tmp_path / "warm")), warm_start_from=model_dir)
    with pytest.raises(ValueError, match=r"w:0 \(\(4, 16\)\).*tensor w \(\[4, 8\]\)"):
        warm.train(dataset_input_fn(), steps=2)
