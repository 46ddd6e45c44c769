"""Rank script: a small super-resolution net trained on ranks, float32 and mixed precision.

The net has the shape of the zoo's super-resolution models: conv + bias + relu,
batch norm, residual blocks and a depth-to-space upscale. Each rank starts from
its own weights and reads its own shard. For every (precision_mode,
iterations_per_loop) pair it trains REPEATS fresh models for 7 steps and writes
``<prefix>.<precision>.n<N>.<repeat>.rank<R>.npz`` with every global variable,
then checks collectives on bfloat16 and float32 values, evaluates rank 0's
checkpoint on every rank (on the same data) and evaluates on rank 0 alone with
a broadcast hook in the hooks.

usage: equal_ranks.py PREFIX WORKDIR
"""
import os
import sys

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.npu_init import (ExponentialUpdateLossScaleManager, NPUDistributedOptimizer,
                                 NPUEstimator, NPUEstimatorSpec, NPULossScaleOptimizer,
                                 NPURunConfig, hccl_ops, npu_hooks_append)

STEPS, REPEATS = 7, 2
PRECISIONS = (None, "allow_mix_precision")
LOOPS = (1, 5)


def images(rank=0, size=1):
    rng = np.random.RandomState(5)
    low = rng.uniform(size=(32, 8, 8, 3)).astype(np.float32)
    high = rng.uniform(size=(32, 16, 16, 3)).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((low, high)).shard(size, rank)


def train_input_fn(params):
    info = runtime.rank_info()
    return images(info.rank_id, info.rank_size).batch(4, drop_remainder=True).repeat()


def eval_input_fn(params):
    return images().batch(4, drop_remainder=True)  # the same data on every rank


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    seed = params["seed"]
    init = tf.compat.v1.glorot_uniform_initializer(seed=seed)
    x = tf.compat.v1.layers.conv2d(features, 16, 3, padding="same", activation=tf.nn.relu,
                                   kernel_initializer=init, name="head")
    skip = x
    for block in range(2):
        y = tf.compat.v1.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu,
                                       kernel_initializer=init, name="block%d_a" % block)
        y = tf.compat.v1.layers.batch_normalization(y, training=training,
                                                    name="block%d_bn" % block)
        y = tf.compat.v1.layers.conv2d(y, 16, 3, padding="same", kernel_initializer=init,
                                       name="block%d_b" % block)
        x = x + y
    x = tf.compat.v1.layers.conv2d(x + skip, 12, 3, padding="same", kernel_initializer=init,
                                   name="upscale")
    predicted = tf.nn.depth_to_space(x, 2)
    loss = tf.reduce_mean(tf.square(predicted - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        psnr = tf.image.psnr(labels, tf.clip_by_value(predicted, 0.0, 1.0), max_val=1.0)
        return NPUEstimatorSpec(mode, loss=loss,
                                eval_metric_ops={"psnr": tf.compat.v1.metrics.mean(psnr)})
    optimizer = NPULossScaleOptimizer(
        NPUDistributedOptimizer(tf.compat.v1.train.MomentumOptimizer(0.05, 0.9)),
        ExponentialUpdateLossScaleManager(2 ** 10, 100), is_distributed=True)
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


class DumpVariables(tf.compat.v1.train.SessionRunHook):
    """Writes every global variable's value when training ends (this rank's copy)."""

    def __init__(self, path):
        self._path = path

    def end(self, session):
        variables = tf.compat.v1.global_variables()
        np.savez(self._path, **{v.op.name.replace("/", "."): value
                                for v, value in zip(variables, session.run(variables))})


def estimator(model_dir, precision, loop, rank):
    config = NPURunConfig(model_dir=model_dir, iterations_per_loop=loop,
                          precision_mode=precision, save_checkpoints_steps=100,
                          log_step_count_steps=None)
    return NPUEstimator(model_fn, config=config, params={"seed": 3 + 10 * rank})


def check_collectives(rank, size):
    """All-reduce and broadcast on bfloat16 and float32 values give every rank the result."""
    with tf.Graph().as_default():
        mine = np.arange(4, dtype=np.float32) + rank
        want = np.arange(4, dtype=np.float32) * size + sum(range(size))
        fetches = {dtype.name: [hccl_ops.allreduce(tf.constant(mine, dtype), "sum"),
                                hccl_ops.broadcast([tf.constant(mine * 2, dtype)], 0)[0]]
                   for dtype in (tf.bfloat16, tf.float32)}
        with tf.compat.v1.Session(runtime.ensure_server(),
                                  config=runtime.session_config_for_rank()) as session:
            got = session.run(fetches)
    for name, (reduced, broadcast) in got.items():
        assert reduced.dtype.name == name and broadcast.dtype.name == name, (name, reduced.dtype)
        np.testing.assert_array_equal(reduced.astype(np.float32), want, err_msg=name)
        np.testing.assert_array_equal(broadcast.astype(np.float32), np.arange(4) * 2.0,
                                      err_msg=name)
    print("COLLECTIVES_OK rank=%d %s" % (rank, sorted(got)))


def main(prefix, workdir):
    info = runtime.rank_info()
    rank = info.rank_id
    for precision in PRECISIONS:
        for loop in LOOPS:
            for repeat in range(REPEATS):
                tag = "%s.n%d.%d" % (precision or "float32", loop, repeat)
                est = estimator(os.path.join(workdir, tag), precision, loop, rank)
                path = "%s.%s.rank%d.npz" % (prefix, tag, rank)
                est.train(train_input_fn, steps=STEPS, hooks=[DumpVariables(path)])
                print("TRAINED rank=%d %s" % (rank, tag))
    check_collectives(rank, info.rank_size)
    # Every rank evaluates rank 0's last checkpoint, and so rank 0's batch-norm statistics.
    last = estimator(os.path.join(workdir, tag), PRECISIONS[-1], LOOPS[-1], rank)
    metrics = last.evaluate(eval_input_fn)
    print("EVAL rank=%d psnr=%r loss=%r" % (rank, float(metrics["psnr"]), float(metrics["loss"])))
    if rank == 0:  # evaluating alone, a broadcast hook among the hooks must not wait for peers
        alone = last.evaluate(eval_input_fn, steps=2, hooks=npu_hooks_append())
        print("EVAL_ALONE rank=0 step=%d" % alone["global_step"])
    print("EQUAL_RANKS_DONE rank=%d" % rank)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
