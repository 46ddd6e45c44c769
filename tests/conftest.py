"""Shared pieces for the tests: a tiny model, its data, and event-file readers."""

import glob
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import tensorflow as tf  # noqa: E402

from npu_bridge.npu_init import NPUEstimatorSpec  # noqa: E402

FEATURES = 4


def make_data(n, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, FEATURES).astype(np.float32)
    y = (x @ np.arange(1, FEATURES + 1, dtype=np.float32)[:, None] + 0.5).astype(np.float32)
    return x, y


def dataset_input_fn(n=64, batch=4, repeat=True, seed=0):
    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(make_data(n, seed)).batch(batch, drop_remainder=True)
        return ds.repeat() if repeat else ds
    return input_fn


def read_scalars(logdir, tag):
    """{step: [values...]} for ``tag`` over every event file below logdir."""
    out = {}
    for path in sorted(glob.glob(os.path.join(logdir, "**", "events.out.tfevents.*"), recursive=True)):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag != tag:
                    continue
                if value.HasField("tensor"):
                    number = float(tf.make_ndarray(value.tensor).reshape(-1)[0])
                else:
                    number = value.simple_value
                out.setdefault(event.step, []).append(number)
    return out


def linear_sgd_step(features, labels, lr=0.1, bias=False):
    """(loss, global_step, train_op) of one SGD step of a zero-initialised linear model."""
    w = tf.compat.v1.get_variable("w", [FEATURES, 1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features, w)
    if bias:
        pred += tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(pred - labels))
    gs = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return loss, gs, train_op


def linear_model_fn(host_call_kind="list", logdir_key="host_logdir", lr=0.1):
    """A linear regression model_fn whose host_call writes loss (and more) per step."""

    def model_fn(features, labels, mode, params):
        w = tf.compat.v1.get_variable("w", [FEATURES, 1], initializer=tf.zeros_initializer())
        b = tf.compat.v1.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w) + b
        if mode == tf.estimator.ModeKeys.PREDICT:
            return NPUEstimatorSpec(mode, predictions={"y": pred})
        loss = tf.reduce_mean(tf.square(pred - labels))
        gs = tf.compat.v1.train.get_global_step()
        logdir = params[logdir_key]

        def host_fn(global_step, loss_value):
            writer = tf.compat.v2.summary.create_file_writer(logdir)
            with writer.as_default(), tf.compat.v2.summary.record_if(True):
                tf.compat.v2.summary.scalar("host_loss", loss_value, step=global_step)
            return tf.compat.v1.summary.all_v2_summary_ops()

        if host_call_kind == "dict":
            host_call = (lambda loss_value, global_step: host_fn(global_step, loss_value),
                         {"loss_value": loss, "global_step": gs})
        elif host_call_kind is None:
            host_call = None
        else:
            host_call = (host_fn, [gs, loss])
        if mode == tf.estimator.ModeKeys.EVAL:
            if host_call is not None:
                # EVAL steps do not move the global step: send a per-step counter instead.
                counter = tf.compat.v1.metrics.mean(tf.constant(1.0))  # unused, keeps metrics busy
                del counter
            mae = tf.compat.v1.metrics.mean_absolute_error(labels, pred)
            return NPUEstimatorSpec(mode, loss=loss, eval_metric_ops={"mae": mae},
                                    host_call=host_call)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)

    return model_fn


@pytest.fixture
def tmp_model_dir(tmp_path):
    return str(tmp_path / "model")


def reference_losses(steps, n=64, batch=4, lr=0.1, seed=0):
    """Per-step losses of linear_model_fn's gradient descent, computed in numpy."""
    x, y = make_data(n, seed)
    batches = n // batch
    w = np.zeros((FEATURES, 1), np.float64)
    b = np.zeros((1,), np.float64)
    losses = []
    for k in range(steps):
        xb = x[(k % batches) * batch:(k % batches + 1) * batch].astype(np.float64)
        yb = y[(k % batches) * batch:(k % batches + 1) * batch].astype(np.float64)
        err = xb @ w + b - yb
        losses.append(float(np.mean(err ** 2)))
        w -= lr * 2.0 / err.size * xb.T @ err
        b -= lr * 2.0 / err.size * err.sum(axis=0)
    return losses
