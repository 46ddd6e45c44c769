"""Rank script: NPUEstimator train / evaluate / train_and_evaluate with ranks.

Each rank seeds differently and reads its shard of every global batch; run
without RANK_SIZE it is the one-process reference on the whole batch.
Dumps variables as each train() ends to ``<out>.<phase>.rank<N>.npz``.

usage: train_estimator.py OUT MODEL_DIR [--loop N]
"""
import argparse
import sys

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.npu_init import (NPUDistributedOptimizer, NPUEstimator, NPUEstimatorSpec,
                                 NPURunConfig, npu_hooks_append)

GLOBAL_BATCH, DIM = 8, 4


def data(n_batches=6):
    rng = np.random.RandomState(3)
    x = rng.normal(size=(n_batches * GLOBAL_BATCH, DIM)).astype(np.float32)
    y = (x @ rng.normal(size=(DIM, 1)) + 0.3).astype(np.float32)
    return x, y


def input_fn(params):
    info = runtime.rank_info()
    per = GLOBAL_BATCH // info.rank_size
    lo = info.rank_id * per
    ds = tf.data.Dataset.from_tensor_slices(data()).batch(GLOBAL_BATCH, drop_remainder=True)
    return ds.map(lambda x, y: (x[lo:lo + per], y[lo:lo + per])).repeat()


def model_fn(features, labels, mode, params):
    # explicit per-rank op seeds: different starts on each rank, rank 0 == one process
    seed = 100 + 17 * runtime.rank_info().rank_id
    init = tf.compat.v1.random_normal_initializer(stddev=0.5, seed=seed)
    hidden = tf.compat.v1.layers.dense(features, 6, activation=tf.nn.tanh, name="h",
                                       kernel_initializer=init, bias_initializer=init)
    pred = tf.compat.v1.layers.dense(hidden, 1, name="out", kernel_initializer=init)
    loss = tf.reduce_mean(tf.square(pred - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        return NPUEstimatorSpec(mode, loss=loss, eval_metric_ops={
            "mae": tf.compat.v1.metrics.mean_absolute_error(labels, pred)})
    opt = NPUDistributedOptimizer(tf.compat.v1.train.MomentumOptimizer(0.05, 0.9))
    global_step = tf.compat.v1.train.get_global_step()
    train_op = opt.minimize(loss, global_step=global_step)
    # host_call runs on rank 0 only: each rank would name its own folder if it ran.
    logdir = "%s/host_rank%d" % (params["model_dir"], runtime.rank_info().rank_id)

    def host_fn(step, loss_value):
        with tf.compat.v2.summary.create_file_writer(logdir).as_default():
            with tf.compat.v2.summary.record_if(True):
                return [tf.compat.v2.summary.scalar("loss", loss_value, step=step)]
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                            host_call=(host_fn, [global_step, loss]))


class DumpHook(tf.compat.v1.train.SessionRunHook):
    """Writes every global variable's final value (this rank's copy)."""

    def __init__(self, path):
        self._path = path

    def end(self, session):
        names = [v.op.name for v in tf.compat.v1.global_variables()]
        values = session.run(tf.compat.v1.global_variables())
        np.savez(self._path, **{n.replace("/", "."): v for n, v in zip(names, values)})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("model_dir")
    parser.add_argument("--loop", type=int, default=3)
    args = parser.parse_args()
    info = runtime.rank_info()
    config = NPURunConfig(iterations_per_loop=args.loop, model_dir=args.model_dir,
                          tf_random_seed=100 + 17 * info.rank_id, save_checkpoints_steps=6,
                          log_step_count_steps=None)
    est = NPUEstimator(model_fn, config=config, params={"model_dir": args.model_dir})
    if info.rank_id != 0:
        # every rank cuts its loops at the checkpoint steps; rank 0 alone writes summaries
        assert est.config.save_checkpoints_steps == 6 and est.config.is_chief
        assert est.config.save_summary_steps == 0
        assert est.config.master.startswith("grpc://"), est.config.master
    dump = "%s.%%s.rank%d.npz" % (args.out, info.rank_id)
    est.train(input_fn, max_steps=12, hooks=npu_hooks_append([DumpHook(dump % "train")]))
    metrics = est.evaluate(input_fn, steps=2)
    print("EVAL rank=%d step=%d loss=%.6f" % (info.rank_id, metrics["global_step"],
                                              metrics["loss"]))
    result = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn, max_steps=18, hooks=[DumpHook(dump % "tae")]),
        tf.estimator.EvalSpec(input_fn, steps=2, throttle_secs=0))
    if info.rank_id == 0:
        print("TAE_EVAL rank=0 step=%d" % result[0]["global_step"])
    print("ESTIMATOR_OK rank=%d" % info.rank_id)


if __name__ == "__main__":
    sys.exit(main())
