"""Rank script: loss scaling with is_distributed=True where only rank 1 overflows.

Gradients are NOT averaged here (no NPUDistributedOptimizer), so the only thing
that can make rank 0 skip the overflowing attempt is the cross-rank agreement
on "all gradients finite". Prints each rank's loss scale, global step and
attempts at the end.

usage: train_loss_scale.py MODEL_DIR
"""
import sys

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.npu_init import (ExponentialUpdateLossScaleManager, NPUEstimator,
                                 NPUEstimatorSpec, NPULossScaleOptimizer, NPURunConfig,
                                 npu_hooks_append)

OVERFLOW_ATTEMPT = 3  # the attempt (1-based) whose gradients are inf on rank 1


def input_fn():
    x = np.random.RandomState(0).rand(32, 3).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat()


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    attempts = tf.compat.v1.get_variable("attempts", [], tf.int64,
                                         initializer=tf.zeros_initializer(), trainable=False)
    attempt = attempts.assign_add(1)  # counts skipped steps too, unlike the global step
    poison = tf.logical_and(tf.equal(attempt, OVERFLOW_ATTEMPT),
                            tf.equal(runtime.rank_info().rank_id, 1))
    loss = tf.reduce_mean(tf.square(tf.matmul(features, w) - labels))
    loss = loss * tf.where(poison, tf.constant(np.inf, tf.float32), 1.0)
    manager = ExponentialUpdateLossScaleManager(
        init_loss_scale=2 ** 10, incr_every_n_steps=1000, decr_every_n_nan_or_inf=1,
        decr_ratio=0.5)
    opt = NPULossScaleOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.01), manager,
                                is_distributed=True)
    train_op = opt.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


class Report(tf.compat.v1.train.SessionRunHook):
    def end(self, session):
        by_name = {v.op.name: v for v in tf.compat.v1.global_variables()}
        scale = [v for name, v in by_name.items() if "loss_scale" in name and
                 v.dtype.base_dtype == tf.float32][0]
        values = session.run([scale, tf.compat.v1.train.get_global_step(), by_name["attempts"]])
        print("REPORT rank=%d scale=%g step=%d attempts=%d"
              % (runtime.rank_info().rank_id, values[0], values[1], values[2]), flush=True)


def main():
    est = NPUEstimator(model_fn, config=NPURunConfig(
        model_dir=sys.argv[1], iterations_per_loop=2, log_step_count_steps=None))
    est.train(input_fn, max_steps=6, hooks=npu_hooks_append([Report()]))


if __name__ == "__main__":
    main()
