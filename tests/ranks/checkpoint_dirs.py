"""Rank script: who writes checkpoints where, and sharded Adam slots in them.

Every rank starts from its own random values (rank 0's are broadcast) and reads
its shard of each global batch; run without RANK_SIZE it is one process on the
whole batch. Values are dumped to ``<work>/<phase>.rank<N>.npz``.

usage:
  checkpoint_dirs.py WORK ranks    # (2 ranks) own model_dirs, then one shared model_dir
  checkpoint_dirs.py WORK resume   # (N ranks) resume WORK/resumeN, a copy of WORK/resume
"""
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.npu_init import (NPUDistributedOptimizer, NPUEstimator, NPUEstimatorSpec,
                                 NPURunConfig)

GLOBAL_BATCH, DIM = 8, 4
VARIABLES = ["h/kernel", "h/bias", "out/kernel", "out/bias"]
SLOTS = [name + suffix for name in VARIABLES for suffix in ("/Adam", "/Adam_1")] + [
    "beta1_power", "beta2_power"]


def input_fn(params):
    info = runtime.rank_info()
    per = GLOBAL_BATCH // info.rank_size
    lo = info.rank_id * per
    rng = np.random.RandomState(3)
    # One global batch, repeated: each train() restarts input_fn, so a resumed run
    # sees the same data as an uninterrupted one.
    x = rng.normal(size=(GLOBAL_BATCH, DIM)).astype(np.float32)
    y = (x @ rng.normal(size=(DIM, 1)) + 0.3).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH, drop_remainder=True)
    return ds.map(lambda x, y: (x[lo:lo + per], y[lo:lo + per])).repeat()


def model_fn(features, labels, mode, params):
    init = tf.compat.v1.random_normal_initializer(
        stddev=0.5, seed=100 + 17 * runtime.rank_info().rank_id)
    hidden = tf.compat.v1.layers.dense(features, 6, activation=tf.nn.tanh, name="h",
                                       kernel_initializer=init, bias_initializer=init)
    pred = tf.compat.v1.layers.dense(hidden, 1, name="out", kernel_initializer=init,
                                     bias_initializer=init)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return NPUEstimatorSpec(mode, predictions={"y": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        return NPUEstimatorSpec(mode, loss=loss)
    opt = NPUDistributedOptimizer(tf.compat.v1.train.AdamOptimizer(0.05),
                                  is_weight_update_sharding=True)
    train_op = opt.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def estimator(model_dir):
    config = NPURunConfig(model_dir=model_dir, iterations_per_loop=2, save_checkpoints_steps=4,
                          log_step_count_steps=None)
    return NPUEstimator(model_fn, config=config)


def dump(work, phase, est, names):
    rank = runtime.rank_info().rank_id
    np.savez(os.path.join(work, "%s.rank%d.npz" % (phase, rank)),
             **{n.replace("/", "."): est.get_variable_value(n) for n in names})


def ranks(work):
    rank = runtime.rank_info().rank_id
    # Each rank its own model_dir (as srun scripts write it): each keeps its checkpoints.
    own = estimator(os.path.join(work, "own", "r%d" % rank))
    own.train(input_fn, steps=3)  # stopped at 3 and resumed: 3 + 3
    own.train(input_fn, steps=3)
    metrics = own.evaluate(input_fn, steps=1)
    prediction = next(own.predict(input_fn, yield_single_examples=False))["y"]
    print("OWN rank=%d step=%d loss=%.6f predicted=%d" % (
        rank, metrics["global_step"], metrics["loss"], prediction.shape[0]))
    dump(work, "own", own, VARIABLES + SLOTS)
    # One model_dir for both: rank 0 writes it, once.
    shared = estimator(os.path.join(work, "shared"))
    shared.train(input_fn, steps=6)  # uninterrupted
    metrics = shared.evaluate(input_fn, steps=1)
    print("SHARED rank=%d step=%d" % (rank, metrics["global_step"]))
    dump(work, "shared", shared, VARIABLES + SLOTS)
    if rank == 0:
        shutil.copytree(os.path.join(work, "shared"), os.path.join(work, "resume"))
    shared.train(input_fn, steps=3)
    dump(work, "shared9", shared, VARIABLES)
    print("RANKS_OK rank=%d" % rank)


def resume(work):
    phase = "resume%d" % runtime.rank_info().rank_size
    est = estimator(os.path.join(work, phase))
    est.train(input_fn, steps=3)
    dump(work, phase, est, VARIABLES)
    print("RESUME_OK rank=%d" % runtime.rank_info().rank_id)


if __name__ == "__main__":
    {"ranks": ranks, "resume": resume}[sys.argv[2]](sys.argv[1])
