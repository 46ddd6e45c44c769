"""A variable read that only host_call uses sees the step's update, as the variable itself does.

The spec page's pattern ``[tf.reshape(global_step, [1]), tf.reshape(loss, [1])]``
must give exactly the steps 1..S, each once, at every loop size, for
resource and TF1 reference variables, in training and in evaluation.
"""

import contextlib

import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_sgd_step, read_scalars, reference_losses
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig

REPETITIONS = 20
_GLOBAL_STEP_KINDS = []  # type names of the global step model_fn saw (params are copied)
STEPS = 9


def _host_fn(logdir):
    def host_fn(step, value):
        writer = tf.compat.v2.summary.create_file_writer(logdir)
        with writer.as_default(), tf.compat.v2.summary.record_if(True):
            tf.compat.v2.summary.scalar("value", value[0], step=step[0])
        return tf.compat.v1.summary.all_v2_summary_ops()
    return host_fn


def _train_model_fn(features, labels, mode, params):
    loss, gs, train_op = linear_sgd_step(features, labels, bias=True)
    _GLOBAL_STEP_KINDS.append(type(gs).__name__)
    host_call = (_host_fn(params["logdir"]), [tf.reshape(gs, [1]), tf.reshape(loss, [1])])
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)


@contextlib.contextmanager
def _reference_variables(enabled):
    if not enabled:
        yield
        return
    tf.compat.v1.disable_resource_variables()
    try:
        yield
    finally:
        tf.compat.v1.enable_resource_variables()


@pytest.mark.parametrize("iterations,ref_variables", [(1, False), (7, False), (100, False),
                                                      (1, True)])
def test_reshaped_global_step_gives_each_step_once(tmp_path, iterations, ref_variables):
    """20 repetitions of a 9-step run: checkpoints every 9 steps cut the loop there."""
    logdir = str(tmp_path / "host")
    del _GLOBAL_STEP_KINDS[:]
    est = NPUEstimator(_train_model_fn, config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=str(tmp_path / "model"),
        log_step_count_steps=None, save_checkpoints_steps=STEPS, keep_checkpoint_max=1),
        params={"logdir": logdir})
    total = STEPS * REPETITIONS
    with _reference_variables(ref_variables):
        est.train(dataset_input_fn(), steps=total)
        est.train(dataset_input_fn(), steps=1)  # a restarted session continues the steps
    records = read_scalars(logdir, "value")
    assert sorted(records) == list(range(1, total + 2))
    assert all(len(v) == 1 for v in records.values())
    expected_loss = reference_losses(total)
    for step in range(1, total + 1):
        assert records[step][0] == pytest.approx(expected_loss[step - 1], rel=1e-4, abs=1e-6)
    assert set(_GLOBAL_STEP_KINDS) == ({"RefVariable"} if ref_variables else {"ResourceVariable"})


def _eval_model_fn(features, labels, mode, params):
    loss, gs, train_op = linear_sgd_step(features, labels)
    if mode == tf.estimator.ModeKeys.TRAIN:
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)
    mean_update = tf.compat.v1.metrics.mean(labels[:, 0], name="label_mean")
    count = [v for v in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOCAL_VARIABLES)
             if v.name.startswith("label_mean/count")][0]
    # Only host_call reads the metric's count through an op; the metric update bumps it
    # by the batch size (4), so count / 4 after the update is the eval step 1, 2, ...
    eval_step = tf.cast(tf.reshape(count, [1]) / 4.0, tf.int64)
    host_call = (_host_fn(params["logdir"]), [eval_step, tf.reshape(labels[0], [1])])
    return NPUEstimatorSpec(mode, loss=loss, host_call=host_call,
                            eval_metric_ops={"label_mean": mean_update})


@pytest.mark.parametrize("iterations", [1, 4])
def test_eval_counter_read_through_an_op_is_after_the_update(tmp_path, iterations):
    from conftest import make_data
    logdir = str(tmp_path / "eval_host")
    est = NPUEstimator(_eval_model_fn, config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=str(tmp_path / "model")),
        params={"logdir": logdir})
    est.train(dataset_input_fn(), steps=1)
    for _ in range(3):
        est.evaluate(dataset_input_fn(n=40, repeat=False))
    records = read_scalars(logdir, "value")
    _, y = make_data(40)
    assert sorted(records) == list(range(1, 11))
    for step, values in records.items():
        assert values == [pytest.approx(float(y[(step - 1) * 4, 0]))] * 3


def _linear_loss_model_fn(features, labels, mode, params):
    # The loss is linear in lam: its gradient needs lam only for its shape.
    lam = tf.compat.v1.get_variable("lam", [], initializer=tf.ones_initializer())
    loss = lam * 1.0 + 0.0 * tf.reduce_mean(features)
    gs = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    host_call = (_host_fn(params["logdir"]), [tf.reshape(gs, [1]), tf.reshape(loss, [1])])
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)


@pytest.mark.parametrize("iterations", [1, 5])
def test_loss_is_the_value_the_step_used(tmp_path, iterations):
    logdir = str(tmp_path / "host")
    est = NPUEstimator(_linear_loss_model_fn, config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=str(tmp_path / "model")),
        params={"logdir": logdir})
    est.train(dataset_input_fn(), steps=10)
    records = read_scalars(logdir, "value")
    assert sorted(records) == list(range(1, 11))
    for step, values in records.items():
        assert values == [pytest.approx(1.0 - 0.1 * (step - 1), abs=1e-5)]
