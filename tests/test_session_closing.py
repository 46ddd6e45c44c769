"""train() and evaluate() return while their session closes (core/session_closing).

The model's session takes seconds to close (tests/trainers/slow_close.py: the
iterator waits for an input element in production). A clean call returns
before that close ends, with its checkpoint and results complete; the close
still happens; an error closes in place; the process exits only once it is done.
"""
import os
import subprocess
import sys

import pytest
import tensorflow as tf

from distributed_util import ROOT, env
from npu_bridge.core import session_closing

sys.path.insert(0, os.path.join(ROOT, "tests", "trainers"))
import slow_close  # noqa: E402

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def no_close_left():
    session_closing.wait_for_closes()
    slow_close.finished.clear()
    yield
    session_closing.wait_for_closes()


def _checkpoint_step(model_dir):
    return int(tf.train.latest_checkpoint(str(model_dir)).rsplit("-", 1)[1])


def test_train_returns_before_its_session_has_closed(tmp_path):
    estimator = slow_close.estimator(str(tmp_path))
    estimator.train(slow_close.input_fn_slow_from(6), steps=6)
    assert not slow_close.finished.is_set()  # the close is still waiting for the element
    assert [t.name for t in session_closing.pending_closes()] == ["npu_bridge-session-close"]
    assert _checkpoint_step(tmp_path) == 6  # everything the call keeps is written already
    assert estimator.get_variable_value("global_step") == 6
    session_closing.wait_for_closes()
    assert slow_close.finished.is_set()  # the session really was closed: its iterator ended
    # the next call starts from that checkpoint
    estimator.train(slow_close.input_fn_slow_from(4), steps=4)
    assert _checkpoint_step(tmp_path) == 10


def test_evaluate_returns_before_its_session_has_closed(tmp_path):
    estimator = slow_close.estimator(str(tmp_path))
    estimator.train(slow_close.input_fn_slow_from(1000), steps=2)
    session_closing.wait_for_closes()
    metrics = estimator.evaluate(slow_close.input_fn_slow_from(4), steps=4)
    assert not slow_close.finished.is_set()
    assert metrics["global_step"] == 2 and metrics["loss"] > 0
    session_closing.wait_for_closes()
    assert slow_close.finished.is_set()


class _FailAtStep(tf.compat.v1.train.SessionRunHook):
    def __init__(self, step):
        self._step = step

    def after_run(self, run_context, run_values):
        if run_context.session.run(tf.compat.v1.train.get_global_step()) >= self._step:
            raise ValueError("hook failure at step %d" % self._step)


def test_a_call_that_fails_closes_its_session_in_place(tmp_path):
    estimator = slow_close.estimator(str(tmp_path))
    with pytest.raises(ValueError, match="hook failure at step 2"):
        estimator.train(slow_close.input_fn_slow_from(2), steps=6, hooks=[_FailAtStep(2)])
    assert slow_close.finished.is_set()  # closed before the error left train()
    assert session_closing.pending_closes() == []


def test_the_process_exits_only_after_the_close(tmp_path):
    script = os.path.join(ROOT, "tests", "trainers", "slow_close.py")
    proc = subprocess.run([sys.executable, script, str(tmp_path)], env=env(), timeout=100,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = [line for line in proc.stdout.splitlines() if line in ("TRAINED", "ELEMENT DONE")]
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert lines == ["TRAINED", "ELEMENT DONE"], proc.stdout[-3000:]


def test_input_release_empties_dense_pipelines_and_leaves_sparse_ones():
    import numpy as np
    from npu_bridge.device_loop.input_release import release_op
    with tf.Graph().as_default():
        features = {"x": np.ones([8, 3], np.float32), "name": np.array([b"a"] * 8)}
        dense = tf.compat.v1.data.make_initializable_iterator(
            tf.data.Dataset.from_tensor_slices((features, np.arange(8))).batch(2))
        release = release_op(dense)
        element = dense.get_next()
        sparse = tf.compat.v1.data.make_initializable_iterator(tf.data.Dataset.from_tensors(
            tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])))
        assert release_op(sparse) is None  # closed with its session, as before
        with tf.compat.v1.Session() as sess:
            sess.run(dense.initializer)
            got = sess.run(element)
            assert got[0]["x"].shape == (2, 3) and list(got[1]) == [0, 1]
            sess.run(release)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(element)
