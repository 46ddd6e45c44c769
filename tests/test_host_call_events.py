"""host_call values read back from real event files: one record per step, right values."""

import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn, read_scalars, reference_losses
from npu_bridge.npu_init import NPUEstimator, NPURunConfig


def _train(model_dir, iterations, steps, kind="list", **train_kwargs):
    host_dir = model_dir + "/host"
    est = NPUEstimator(linear_model_fn(kind), config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=model_dir),
        params={"host_logdir": host_dir})
    est.train(dataset_input_fn(), steps=steps, **train_kwargs)
    return est, host_dir


@pytest.mark.parametrize("iterations", [1, 7, 100])
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_every_train_step_has_one_record_with_the_model_value(tmp_model_dir, iterations, kind):
    steps = 45
    est, host_dir = _train(tmp_model_dir, iterations, steps, kind)
    assert est.get_variable_value("global_step") == steps
    records = read_scalars(host_dir, "host_loss")
    assert sorted(records) == list(range(1, steps + 1))
    assert all(len(v) == 1 for v in records.values())
    expected = reference_losses(steps)
    for step, values in records.items():
        assert values[0] == pytest.approx(expected[step - 1], rel=1e-4, abs=1e-6)


def test_host_call_records_match_between_loop_sizes(tmp_path):
    one = read_scalars(_train(str(tmp_path / "a"), 1, 30)[1], "host_loss")
    seven = read_scalars(_train(str(tmp_path / "b"), 7, 30)[1], "host_loss")
    assert one == seven


def test_second_train_call_continues_the_records(tmp_model_dir):
    est, host_dir = _train(tmp_model_dir, 7, 10)
    est.train(dataset_input_fn(), steps=12)
    records = read_scalars(host_dir, "host_loss")
    assert sorted(records) == list(range(1, 23))
    assert all(len(v) == 1 for v in records.values())


def _eval_model_fn(logdir):
    """A model whose eval host_call writes each step's batch mean label, keyed by eval step."""

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w)
        loss = tf.reduce_mean(tf.square(pred - labels))
        counter = tf.compat.v1.get_variable(
            "eval_counter", [], tf.int64, initializer=tf.zeros_initializer(),
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES], trainable=False)
        step = counter.assign_add(1)

        def host_fn(step, label_mean):
            writer = tf.compat.v2.summary.create_file_writer(logdir)
            with writer.as_default(), tf.compat.v2.summary.record_if(True):
                tf.compat.v2.summary.scalar("label_mean", label_mean, step=step)
            return tf.compat.v1.summary.all_v2_summary_ops()

        from npu_bridge.npu_init import NPUEstimatorSpec
        if mode == tf.estimator.ModeKeys.TRAIN:
            gs = tf.compat.v1.train.get_global_step()
            return NPUEstimatorSpec(mode, loss=loss, train_op=gs.assign_add(1))
        with tf.control_dependencies([step]):
            label_mean = tf.reduce_mean(labels)
        return NPUEstimatorSpec(
            mode, loss=loss, eval_metric_ops={"label_mean": tf.compat.v1.metrics.mean(labels)},
            host_call=(host_fn, [step, label_mean]))

    return model_fn


@pytest.mark.parametrize("iterations", [1, 4])
def test_every_eval_step_has_a_record_until_input_ends(tmp_model_dir, iterations):
    from conftest import make_data
    host_dir = tmp_model_dir + "/eval_host"
    est = NPUEstimator(_eval_model_fn(host_dir), config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=tmp_model_dir))
    est.train(dataset_input_fn(), steps=1)
    # 40 rows in batches of 4 = 10 eval steps; 10 is not a multiple of 4.
    results = est.evaluate(dataset_input_fn(n=40, repeat=False))
    records = read_scalars(host_dir, "label_mean")
    assert sorted(records) == list(range(1, 11))
    _, y = make_data(40)
    for step, values in records.items():
        assert values == [pytest.approx(float(y[(step - 1) * 4:step * 4].mean()), rel=1e-5)]
    assert results["label_mean"] == pytest.approx(float(y.mean()), rel=1e-5)


def test_eval_with_steps_runs_exactly_that_many(tmp_model_dir):
    host_dir = tmp_model_dir + "/eval_host"
    est = NPUEstimator(_eval_model_fn(host_dir), config=NPURunConfig(
        iterations_per_loop=4, model_dir=tmp_model_dir))
    est.train(dataset_input_fn(), steps=1)
    est.evaluate(dataset_input_fn(n=40, repeat=False), steps=6)
    assert sorted(read_scalars(host_dir, "label_mean")) == list(range(1, 7))
