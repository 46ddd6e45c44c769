"""Mistakes that used to fail late or unclearly fail where they are made, naming the argument."""

import pytest
import tensorflow as tf

from conftest import FEATURES, dataset_input_fn, linear_model_fn
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig


def test_model_fn_that_is_not_callable_is_named():
    with pytest.raises(TypeError, match=r"model_fn must be a callable .*; got str 'notcallable'"):
        NPUEstimator("notcallable")


def test_step_counts_given_as_strings_are_named_before_any_comparison(tmp_model_dir):
    est = NPUEstimator(linear_model_fn(None), config=NPURunConfig(
        iterations_per_loop=2, model_dir=tmp_model_dir), params={"host_logdir": tmp_model_dir})
    for kwargs, message in [
            (dict(steps="10"), r"train\(\) steps must be a positive int; got str '10'"),
            (dict(max_steps="10"),
             r"train\(\) max_steps must be a positive int; got str '10'")]:
        with pytest.raises(TypeError, match=message):
            est.train(dataset_input_fn(), **kwargs)
    with pytest.raises(TypeError, match=r"evaluate\(\) steps must be a positive int; "
                                        r"got str '10'"):
        est.evaluate(dataset_input_fn(), steps="10")
    assert tf.train.latest_checkpoint(tmp_model_dir) is None  # nothing ran


def _host_call_on_placeholder_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [FEATURES, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    global_step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=global_step)
    scale = tf.compat.v1.placeholder(tf.float32, [], name="loss_scale_for_logging")
    fine = tf.compat.v1.placeholder_with_default(1.0, [], name="has_a_default")

    def host_fn(step, scaled, also_fine):
        return [tf.compat.v1.Print(scaled, [step, scaled, also_fine])]
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=(
        host_fn, [global_step, tf.identity(loss * scale, name="scaled_loss"), loss * fine]))


@pytest.mark.parametrize("iterations", [1, 3])
def test_host_call_on_an_unfed_placeholder_fails_at_graph_build(tmp_model_dir, iterations):
    est = NPUEstimator(_host_call_on_placeholder_model_fn, config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=tmp_model_dir))
    with pytest.raises(ValueError, match=r"host_call\[1\]\[1\] \(scaled_loss:0\) is computed "
                                         r"from the placeholder loss_scale_for_logging:0"):
        est.train(dataset_input_fn(), steps=3)
    assert tf.train.latest_checkpoint(tmp_model_dir) is None  # no session ever ran
