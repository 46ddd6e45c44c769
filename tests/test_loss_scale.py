"""Loss scaling: skip exactly the overflowing steps, follow the scale schedule."""

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator.npu.npu_loss_scale_manager import (
    ExponentialUpdateLossScaleManager, FixedLossScaleManager)
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import NPULossScaleOptimizer
from npu_bridge.estimator.npu.npu_optimizer import NPUOptimizer

tf.compat.v1.disable_eager_execution()

LR = 0.1


def _overflow_model(make_opt):
    """loss = w * m: d loss / dw = m, so feeding m=inf makes the gradient inf."""
    graph = tf.Graph()
    with graph.as_default():
        m = tf.compat.v1.placeholder(tf.float32, [], name="m")
        w = tf.compat.v1.get_variable("w", initializer=5.0)
        step = tf.compat.v1.train.get_or_create_global_step()
        opt, manager = make_opt()
        train_op = opt.minimize(w * m, global_step=step)
        scale = manager.get_loss_scale()
        init = tf.compat.v1.global_variables_initializer()
    return graph, m, w, step, train_op, scale, init


def _dynamic():
    manager = ExponentialUpdateLossScaleManager(
        init_loss_scale=16, incr_every_n_steps=2, decr_every_n_nan_or_inf=2,
        incr_ratio=2, decr_ratio=0.5)
    return NPULossScaleOptimizer(
        tf.compat.v1.train.GradientDescentOptimizer(LR), manager), manager


# (multiplier fed, loss scale after the step); inf/nan steps must be skipped.
SCHEDULE = [(1.0, 16), (1.0, 32), (np.inf, 32), (np.nan, 16), (1.0, 16),
            (np.inf, 16), (1.0, 16), (1.0, 32), (1.0, 32), (np.inf, 32),
            (np.inf, 16), (-np.inf, 16)]


@pytest.mark.parametrize("make_opt", [
    _dynamic,
    lambda: (lambda m: (NPUOptimizer(tf.compat.v1.train.GradientDescentOptimizer(LR),
                                     m, is_loss_scale=True), m))(
        ExponentialUpdateLossScaleManager(16, 2, 2, 2, 0.5)),
], ids=["NPULossScaleOptimizer", "NPUOptimizer"])
def test_dynamic_scale_skips_bad_steps_and_follows_schedule(make_opt):
    graph, m, w, step, train_op, scale, init = _overflow_model(make_opt)
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init)
        expected_w, expected_step = 5.0, 0
        for i, (mult, expected_scale) in enumerate(SCHEDULE):
            sess.run(train_op, {m: mult})
            if np.isfinite(mult):
                expected_w -= LR * mult
                expected_step += 1
            got_w, got_step, got_scale = sess.run([w, step, scale])
            assert got_scale == expected_scale, "step %d" % i
            assert got_step == expected_step, "step %d" % i
            assert got_w == pytest.approx(expected_w, abs=1e-6), "step %d" % i


def test_scale_never_below_one_and_never_inf():
    graph = tf.Graph()
    with graph.as_default():
        finite = tf.compat.v1.placeholder(tf.bool, [])
        manager = ExponentialUpdateLossScaleManager(
            2, incr_every_n_steps=1, decr_every_n_nan_or_inf=1, decr_ratio=0.3,
            incr_ratio=2 ** 64)
        update = manager.update_loss_scale(finite)
        scale = manager.get_loss_scale()
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init)
        got = []
        for flag in [False, False, True, True, True, True]:
            sess.run(update, {finite: flag})
            got.append(sess.run(scale))
    # 2*0.3 floors at 1 and stays; x2^64 once; then 2^128 would pass float32 max.
    assert got == [1.0, 1.0, 2.0 ** 64, 2.0 ** 64, 2.0 ** 64, 2.0 ** 64]


def _regression_run(wrap, steps=6):
    rng = np.random.RandomState(0)
    xs = rng.randn(steps, 8, 3).astype(np.float32)
    ys = rng.randn(steps, 8, 1).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [8, 3])
        y = tf.compat.v1.placeholder(tf.float32, [8, 1])
        w = tf.compat.v1.get_variable(
            "w", initializer=np.arange(3, dtype=np.float32).reshape(3, 1) / 10)
        b = tf.compat.v1.get_variable("b", initializer=[0.5])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = wrap(tf.compat.v1.train.AdamOptimizer(0.05)).minimize(
            loss, global_step=step)
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init)
        for i in range(steps):
            sess.run(train_op, {x: xs[i], y: ys[i]})
        return sess.run([w, b, step])


def test_fixed_scale_one_equals_plain_training():
    plain = _regression_run(lambda opt: opt)
    scaled = _regression_run(
        lambda opt: NPULossScaleOptimizer(opt, FixedLossScaleManager(1)))
    np.testing.assert_array_equal(plain[0], scaled[0])
    np.testing.assert_array_equal(plain[1], scaled[1])
    assert plain[2] == scaled[2] == 6
    assert not np.allclose(plain[0], np.arange(3).reshape(3, 1) / 10)  # it trained


def test_power_of_two_scale_and_distributed_single_rank_match_plain(monkeypatch):
    monkeypatch.delenv("RANK_SIZE", raising=False)
    plain = _regression_run(lambda opt: opt)
    for wrap in (
            lambda opt: NPULossScaleOptimizer(opt, FixedLossScaleManager(1024),
                                              is_distributed=True),
            lambda opt: NPUOptimizer(opt, FixedLossScaleManager(1024),
                                     is_distributed=True, is_loss_scale=True),
            lambda opt: NPUOptimizer(opt)):
        got = _regression_run(wrap)
        np.testing.assert_allclose(plain[0], got[0], rtol=1e-6)
        np.testing.assert_allclose(plain[1], got[1], rtol=1e-6)


def test_fixed_manager_without_overflow_check_applies_inf():
    def make():
        manager = FixedLossScaleManager(4, enable_overflow_check=False)
        return NPULossScaleOptimizer(
            tf.compat.v1.train.GradientDescentOptimizer(LR), manager), manager

    graph, m, w, step, train_op, scale, init = _overflow_model(make)
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init)
        sess.run(train_op, {m: np.inf})
        assert sess.run(step) == 1
        assert np.isinf(sess.run(w))
        assert sess.run(scale) == 4.0


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="loss_scale"):
        FixedLossScaleManager(0.5)
    with pytest.raises(TypeError, match="incr_every_n_steps"):
        ExponentialUpdateLossScaleManager(2 ** 10, 10.5)
    with pytest.raises(ValueError, match="decr_ratio"):
        ExponentialUpdateLossScaleManager(2 ** 10, 10, decr_ratio=1.5)
    with pytest.raises(TypeError, match="opt"):
        NPULossScaleOptimizer("sgd", FixedLossScaleManager(1))
    with pytest.raises(ValueError, match="loss_scale_manager"):
        NPUOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1),
                     is_loss_scale=True)
