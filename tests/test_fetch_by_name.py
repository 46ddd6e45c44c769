"""Hooks passed to train() fetch model_fn tensors by name under iterations_per_loop > 1."""
import numpy as np
import tensorflow as tf

from conftest import dataset_input_fn, reference_losses
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig, TellMeStepOrLossHook


def _model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.identity(tf.reduce_mean(tf.square(tf.matmul(features, w) + b - labels)),
                       name="loss")
    learning_rate = tf.identity(tf.constant(0.1), name="learning_rate")
    train_op = tf.compat.v1.train.GradientDescentOptimizer(learning_rate).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


class _FetchByName(tf.compat.v1.train.SessionRunHook):
    """Names in before_run (same run as training) and a sess.run of its own in after_run."""

    def __init__(self):
        self.same_run, self.own_run = [], []

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(["loss:0", "learning_rate:0"])

    def after_run(self, run_context, run_values):
        self.same_run.append(run_values.results)
        self.own_run.append(run_context.session.run("loss:0"))


def test_train_hooks_fetch_loss_by_name_and_see_the_last_step(tmp_model_dir):
    by_name = _FetchByName()
    tell = TellMeStepOrLossHook(loss="loss:0")
    est = NPUEstimator(_model_fn, config=NPURunConfig(
        model_dir=tmp_model_dir, iterations_per_loop=10, save_checkpoints_steps=1000,
        log_step_count_steps=None))
    est.train(dataset_input_fn(), steps=30, hooks=[by_name, tell])
    want = reference_losses(30)
    assert len(by_name.same_run) == 3
    for run, (loss, rate) in enumerate(by_name.same_run):
        np.testing.assert_allclose(loss, want[10 * run + 9], rtol=1e-5)
        assert rate == np.float32(0.1)
    # a hook's own sess.run reads the same last-step value and trains nothing more
    np.testing.assert_allclose(by_name.own_run, [v[0] for v in by_name.same_run], rtol=0)
    assert est.get_variable_value("global_step") == 30
    np.testing.assert_allclose(tell.last_loss, want[29], rtol=1e-5)
