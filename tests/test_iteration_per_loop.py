"""set_iteration_per_loop: one sess.run of the returned op runs exactly N steps."""

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator.npu import util

tf.compat.v1.disable_eager_execution()


def _graph(with_data=False):
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        if with_data:
            ds = tf.data.Dataset.range(1000).map(lambda i: tf.cast(i, tf.float32))
            x = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        else:
            x = tf.compat.v1.placeholder_with_default(1.0, [])
        w = tf.compat.v1.get_variable("w", initializer=0.0)
        loss = tf.square(w - x)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=step)
    return graph, step, w, x, train_op


def test_session_script_advances_global_step_by_n_per_run():
    graph, step, w, _, train_op = _graph(with_data=True)
    with graph.as_default(), tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        loop_op = util.set_iteration_per_loop(sess, train_op, 10)
        assert loop_op.name == "IterationOp"
        for expected in (10, 20, 30):
            sess.run(loop_op)
            assert sess.run(step) == expected
        sess.run(train_op)  # the plain op still runs one step
        assert sess.run(step) == 31
        # 31 dataset elements consumed: the next one is 31.0.
        assert sess.run(graph.get_tensor_by_name("IteratorGetNext:0")) == 31.0


def test_feeds_and_fetches_and_other_sessions():
    graph, step, w, x, train_op = _graph()
    with graph.as_default():
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=graph) as sess, \
            tf.compat.v1.Session(graph=graph) as other:
        sess.run(init)
        other.run(init)
        loop_op = util.set_iteration_per_loop(sess, train_op, 4)
        _, got_step = sess.run([loop_op, step], feed_dict={x: 2.0})
        assert sess.run(step) == 4
        # w after 4 SGD steps towards 2.0 with lr 0.1: w <- w + 0.2 (2 - w)
        expected = 0.0
        for _ in range(4):
            expected += 0.2 * (2.0 - expected)
        assert sess.run(w) == pytest.approx(expected, rel=1e-6)
        sess.run({"op": "IterationOp"})  # fetch by name inside a dict
        assert sess.run(step) == 8
        other.run(loop_op)  # not registered there: one step
        assert other.run(step) == 1


def test_iteration_per_loop_two_step_form():
    graph, step, _, _, train_op = _graph()
    with graph.as_default():
        helper = util.IterationPerLoop()
        loop_op = helper.create_iteration_per_loop_var(train_op)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            helper.load_iteration_per_loop_var(sess, 5)
            sess.run(loop_op)
            sess.run(loop_op)
            assert sess.run(step) == 10
            helper.load_iteration_per_loop_var(sess, 2)
            sess.run(loop_op)
            assert sess.run(step) == 12


def test_n_equal_one_and_bad_arguments():
    graph, _, _, _, train_op = _graph()
    with tf.compat.v1.Session(graph=graph) as sess:
        assert util.set_iteration_per_loop(sess, train_op, 1) is train_op
        with pytest.raises(ValueError, match="iterations_per_loop"):
            util.set_iteration_per_loop(sess, train_op, 0)
        with pytest.raises(TypeError, match="iterations_per_loop"):
            util.set_iteration_per_loop(sess, train_op, 2.0)
        with pytest.raises(ValueError, match="train_op"):
            util.set_iteration_per_loop(sess, train_op.outputs if train_op.outputs
                                        else np.float32(1), 3)


_AFTER_RUN_SCRIPT = """
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
from npu_bridge.estimator.npu import util
w = tf.compat.v1.get_variable("w", initializer=1.0)
gs = tf.compat.v1.train.get_or_create_global_step()
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(w * w, global_step=gs)
sess = tf.compat.v1.Session()
sess.run(tf.compat.v1.global_variables_initializer())
sess.run(train_op)
loop = util.set_iteration_per_loop(sess, train_op, 5)
sess.run(loop)
print("STEP", sess.run(gs))
"""


def test_set_iteration_per_loop_after_a_run_mutates_nothing():
    """TensorFlow warns (a future error) when a node is changed after it ran."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0")
    proc = subprocess.run([sys.executable, "-c", _AFTER_RUN_SCRIPT], env=env, text=True,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "STEP 6" in proc.stdout
    assert "was changed by setting attribute after it was run" not in proc.stderr
