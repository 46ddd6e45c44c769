"""Rank script: a small NPUEstimator job that trains until it is stopped (signals, kills).

usage: stop_job.py MODEL_DIR [--seed] [--distributed-optimizer] [--own-model-dir]
                   [--evaluate] [--steps N]

iterations_per_loop=5; trains N steps (default: until stopped). Prints ``PID rank=R pid=P`` at start, ``TRAINING rank=R``
once it has made steps, and ``VARS rank=R step=S digest=D`` when its training
session ends (the trainable variables' bytes, so ranks can be compared). With
--own-model-dir rank R writes to MODEL_DIR/r<R> (as srun-started ranks
often do), else every rank names MODEL_DIR. With --evaluate it first trains
10 steps, then evaluates forever on a repeating input (``EVALUATING rank=R``);
the evaluation has a collective (an all-reduced metric), so ranks depend on
each other there as in training.
"""
import argparse
import hashlib
import os
import sys
import time

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.npu_init import (NPUDistributedOptimizer, NPUEstimator, NPUEstimatorSpec,
                                 NPURunConfig)


class Report(tf.compat.v1.train.SessionRunHook):
    """Says once when steps are made, and what the variables are when the session ends."""

    def __init__(self, rank, word):
        self._rank, self._word, self._said = rank, word, False

    def after_run(self, run_context, run_values):
        if not self._said:
            self._said = True
            print("%s rank=%d" % (self._word, self._rank), flush=True)

    def end(self, session):
        if self._word != "TRAINING":
            return
        values = session.run(tf.compat.v1.trainable_variables())
        digest = hashlib.sha256(b"".join(np.asarray(v).tobytes() for v in values)).hexdigest()
        step = session.run(tf.compat.v1.train.get_global_step())
        print("VARS rank=%d step=%d digest=%s" % (self._rank, step, digest[:16]), flush=True)


class LateAfterRun(tf.compat.v1.train.SessionRunHook):
    """Rank 0 ends each run later than the others, as a rank that writes summaries does.

    Then, when a signal arrives, rank 1 is usually already inside its next run
    while rank 0 still handles the last one: the case where ranks must agree
    on when to stop rather than each stop on its own signal.
    """

    def after_run(self, run_context, run_values):
        time.sleep(0.03)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir")
    parser.add_argument("--seed", action="store_true")
    parser.add_argument("--distributed-optimizer", action="store_true")
    parser.add_argument("--own-model-dir", action="store_true")
    parser.add_argument("--evaluate", action="store_true")
    parser.add_argument("--steps", type=int, default=10 ** 7)
    args = parser.parse_args()
    rank = runtime.rank_info().rank_id
    model_dir = os.path.join(args.model_dir, "r%d" % rank) if args.own_model_dir else args.model_dir

    def model_fn(features, labels, mode):
        hidden = tf.compat.v1.layers.Dense(32, activation=tf.nn.relu)(features)
        pred = tf.compat.v1.layers.Dense(1)(hidden)
        loss = tf.reduce_mean(tf.square(pred - labels))
        if mode == tf.estimator.ModeKeys.EVAL:
            everyone = collectives.allreduce(loss, "mean")
            return NPUEstimatorSpec(mode, loss=loss, eval_metric_ops={
                "loss_all_ranks": tf.compat.v1.metrics.mean(everyone)})
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.01)
        if args.distributed_optimizer:
            optimizer = NPUDistributedOptimizer(optimizer)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        x = np.random.RandomState(rank).rand(256, 16).astype("float32")
        dataset = tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True)))
        return dataset.batch(32).repeat()

    config = NPURunConfig(model_dir=model_dir, iterations_per_loop=5,
                          tf_random_seed=1 if args.seed else None,
                          save_checkpoints_steps=50)  # rank 0 saves often while training
    estimator = NPUEstimator(model_fn, config=config)
    print("PID rank=%d pid=%d" % (rank, os.getpid()), flush=True)
    if args.evaluate:
        estimator.train(input_fn, max_steps=10)
        estimator.evaluate(input_fn, hooks=[Report(rank, "EVALUATING")])
    else:
        hooks = [Report(rank, "TRAINING")] + ([LateAfterRun()] if rank == 0 else [])
        estimator.train(input_fn, max_steps=args.steps, hooks=hooks)


if __name__ == "__main__":
    sys.exit(main())
