"""npu_ops: dropout takes keep_prob, LARSV2 matches its formula, stubs say what is missing."""

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator import npu_ops

tf.compat.v1.disable_eager_execution()


def _run(fetches, feed=None):
    with tf.compat.v1.Session() as sess:
        return sess.run(fetches, feed)


def test_dropout_keeps_fraction_and_rescales():
    with tf.Graph().as_default():
        x = tf.ones([200, 100])
        y = npu_ops.dropout(x, keep_prob=0.25, seed=3)
        grad = tf.gradients(tf.reduce_sum(y), x)[0]
        out, g = _run([y, grad])
    assert set(np.unique(out)) == {0.0, 4.0}
    assert abs((out > 0).mean() - 0.25) < 0.02
    np.testing.assert_array_equal(g, out)  # d/dx of x*mask/keep_prob = mask/keep_prob


def test_dropout_keep_one_is_identity_and_tensor_keep_prob():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, -2.0]])
        assert npu_ops.dropout(x, 1.0) is x
        keep = tf.compat.v1.placeholder(tf.float32, [])
        out = _run(npu_ops.dropout(tf.ones([1000]), keep), {keep: 1.0})
    np.testing.assert_array_equal(out, np.ones(1000))


def test_dropout_noise_shape_shares_mask():
    with tf.Graph().as_default():
        out = _run(npu_ops.dropout(tf.ones([50, 8]), 0.5, noise_shape=[50, 1], seed=1))
    assert all(len(set(row)) == 1 for row in out)


def test_dropout_rejects_bad_input():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="keep_prob"):
            npu_ops.dropout(tf.ones([2]), 0.0)
        with pytest.raises(ValueError, match="floating"):
            npu_ops.dropout(tf.ones([2], tf.int32), 0.5)


def test_larsv2_formula():
    w = np.array([3.0, 4.0], np.float32)  # |w| = 5
    g = np.array([0.6, 0.8], np.float32)  # |g| = 1
    decay, hyper, eps = 0.01, 0.001, 1e-5
    coeff = hyper * 5 / (1 + decay * 5 + eps)
    with tf.Graph().as_default():
        plain, clipped, zero = _run([
            npu_ops.LARSV2(w, g, decay, 0.1, hyper, eps),
            npu_ops.LARSV2(w, g, decay, 1e-4, hyper, eps, use_clip=True),
            npu_ops.LARSV2(np.zeros(2, np.float32), g, decay, 0.1)])
    np.testing.assert_allclose(plain, coeff * (g + decay * w), rtol=1e-5)
    np.testing.assert_allclose(clipped, 1.0 * (g + decay * w), rtol=1e-5)
    np.testing.assert_allclose(zero, g, rtol=1e-6)


def test_system_ops_run_and_stubs_name_the_op():
    with tf.Graph().as_default():
        _run([npu_ops.initialize_system(), npu_ops.shutdown_system(),
              npu_ops.NPUInit(), npu_ops.NPUShutdown()])
    # basic_lstm_cell and the Adam/LAMB kernels are computed now: test_migration_kernels.py
    with pytest.raises(NotImplementedError, match="outfeed_enqueue_op"):
        npu_ops.outfeed_enqueue_op("c", [])
