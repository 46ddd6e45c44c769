"""A migrated-style script: loss scaling + distributed optimizer + host_call, end to end."""

import tensorflow as tf

from npu_bridge.npu_init import *  # noqa: F401,F403  (what migrated scripts do)
from npu_bridge.npu_init import (ExponentialUpdateLossScaleManager, NPUDistributedOptimizer,
                                 NPUEstimator, NPUEstimatorSpec, NPULossScaleOptimizer,
                                 NPURunConfig, npu_hooks_append)
from npu_bridge.migration.session_helpers import npu_run_config_init

from conftest import FEATURES, dataset_input_fn, read_scalars


def _model_fn(features, labels, mode, params):
    w = tf.compat.v1.get_variable("w", [FEATURES, 1], initializer=tf.zeros_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) + b - labels))
    step = tf.compat.v1.train.get_global_step()
    manager = ExponentialUpdateLossScaleManager(init_loss_scale=2 ** 10,
                                                incr_every_n_steps=3,
                                                decr_every_n_nan_or_inf=2,
                                                decr_ratio=0.5)
    opt = NPUDistributedOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.05))
    opt = NPULossScaleOptimizer(opt, manager, is_distributed=True)
    train_op = opt.minimize(loss, global_step=step)
    logdir = params["logdir"]

    def host_fn(global_step, loss_value, scale):
        writer = tf.compat.v2.summary.create_file_writer(logdir)
        with writer.as_default(), tf.compat.v2.summary.record_if(True):
            tf.compat.v2.summary.scalar("loss", loss_value[0], step=global_step)
            tf.compat.v2.summary.scalar("scale", scale, step=global_step)
        return tf.compat.v1.summary.all_v2_summary_ops()

    # Variables themselves (not reads): host_call reads them after train_op.
    host_call = (host_fn, [step, tf.reshape(loss, [1]), manager.get_loss_scale()])
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)


def test_npu_estimator_with_loss_scale_and_host_call(tmp_path, monkeypatch):
    monkeypatch.delenv("RANK_SIZE", raising=False)
    logdir = str(tmp_path / "host")
    config = NPURunConfig(model_dir=str(tmp_path / "model"), iterations_per_loop=3,
                          save_checkpoints_steps=100, log_step_count_steps=None)
    est = NPUEstimator(_model_fn, config=config, params={"logdir": logdir})
    est.train(dataset_input_fn(), max_steps=9, hooks=npu_hooks_append([]))
    assert est.get_variable_value("global_step") == 9
    # No overflow in this model: the scale doubles every 3 clean steps.
    assert est.get_variable_value("loss_scale_manager/loss_scale") == 2 ** 13
    losses = read_scalars(logdir, "loss")
    scales = read_scalars(logdir, "scale")
    assert sorted(losses) == list(range(1, 10))
    # As seen after each step's update: doubled after steps 3, 6 and 9.
    assert scales == {s: [2.0 ** (10 + s // 3)] for s in range(1, 10)}
    assert losses[9][0] < losses[1][0]


def test_plain_estimator_with_npu_run_config_init(tmp_path, monkeypatch):
    monkeypatch.delenv("RANK_SIZE", raising=False)
    run_config = npu_run_config_init(tf.estimator.RunConfig(
        model_dir=str(tmp_path / "model"), log_step_count_steps=None))
    est = tf.estimator.Estimator(_model_fn, config=run_config,
                                 params={"logdir": str(tmp_path / "host")})
    est.train(dataset_input_fn(), steps=6, hooks=npu_hooks_append())
    assert est.get_variable_value("global_step") == 6
    assert est.get_variable_value("loss_scale_manager/loss_scale") == 2 ** 12
