"""Trains 10 steps, then evaluates until a signal stops it; twice (for the signal tests).

usage: evaluate_until_stopped.py MODEL_DIR

Prints ``EVALUATING 1`` once the first evaluation has made runs. If that one
raises KeyboardInterrupt (SIGINT) the script prints ``INTERRUPTED new_threads=[...]``
(threads that exist now and did not before evaluate()) and evaluates again
(``EVALUATING 2``), which a SIGTERM should end with exit status 143.
"""
import os
import sys
import threading

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig  # noqa: E402

model_dir = sys.argv[1]


def model_fn(features, labels, mode):
    pred = tf.compat.v1.layers.Dense(1)(features)
    loss = tf.reduce_mean(tf.square(pred - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        return NPUEstimatorSpec(mode, loss=loss)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    x = np.random.RandomState(0).rand(64, 3).astype("float32")
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(8).repeat()


class SayEvaluating(tf.compat.v1.train.SessionRunHook):
    def __init__(self, round_number):
        self._round, self._said = round_number, False

    def after_run(self, run_context, run_values):
        if not self._said:
            self._said = True
            print("EVALUATING %d" % self._round, flush=True)


estimator = NPUEstimator(model_fn, config=NPURunConfig(
    model_dir=model_dir, iterations_per_loop=5, log_step_count_steps=None))
estimator.train(input_fn, max_steps=10)
before = {t.ident for t in threading.enumerate()}
try:
    estimator.evaluate(input_fn, hooks=[SayEvaluating(1)])
except KeyboardInterrupt:
    new = sorted(t.name for t in threading.enumerate() if t.ident not in before)
    print("INTERRUPTED new_threads=%s" % new, flush=True)
estimator.evaluate(input_fn, hooks=[SayEvaluating(2)])
print("NOT STOPPED", flush=True)
