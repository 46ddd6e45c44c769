"""A model whose session takes SLOW_S seconds to close, for the close-behind tests.

Its input pipeline's prefetch thread starts on element ``slow_from`` as soon as
the element before it is taken, and that element's py_function sleeps SLOW_S
seconds; closing the session waits for it (the iterator joins its threads).
``finished`` is set, and ``ELEMENT DONE`` printed, when that sleep ends.

Run as a script (``slow_close.py MODEL_DIR``) it trains 6 steps, prints
``TRAINED``, and ends: the process should exit 0 only after ``ELEMENT DONE``.
"""
import os
import sys
import threading
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig  # noqa: E402

SLOW_S = 4.0
finished = threading.Event()


def input_fn_slow_from(slow_from):
    """An input_fn of batches of one whose element ``slow_from`` (and later) sleeps."""
    def element(index):
        if int(index) >= slow_from:
            time.sleep(SLOW_S)
            finished.set()
            print("ELEMENT DONE", flush=True)
        return np.full([2], float(index) / 10, np.float32)

    def input_fn():
        ds = tf.data.Dataset.range(1000).map(
            lambda i: tf.py_function(element, [i], tf.float32))
        ds = ds.map(lambda x: (tf.reshape(x, [2]), tf.reduce_sum(x, keepdims=True)))
        return ds.batch(1).prefetch(1)
    return input_fn


def model_fn(features, labels, mode):
    pred = tf.compat.v1.layers.Dense(1, kernel_initializer="zeros")(features)
    loss = tf.reduce_mean(tf.square(pred - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        return NPUEstimatorSpec(mode, loss=loss)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def estimator(model_dir, iterations_per_loop=2):
    return NPUEstimator(model_fn, config=NPURunConfig(
        model_dir=model_dir, iterations_per_loop=iterations_per_loop,
        log_step_count_steps=None))


if __name__ == "__main__":
    estimator(sys.argv[1]).train(input_fn_slow_from(6), steps=6)
    print("TRAINED", flush=True)
