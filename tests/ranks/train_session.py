"""Rank script: a plain tf.compat.v1 training loop with NPUDistributedOptimizer.

Every rank seeds its initialisers differently (the broadcast hook must fix
that) and trains on its own shard of each global batch.  Run without
RANK_SIZE it trains on the whole global batch: the reference.
Writes the final variables to ``<out>.rank<N>.npz``.

With ``--sharded`` the optimizer shards its weight update over the ranks and
each rank prints ``SLOTS OPT rank=R vars=...``: the variables it holds slots for.
With ``--optimizer adam,momentum`` both are trained, one graph after the other,
into ``<out>.adam.rank<N>.npz`` and ``<out>.momentum.rank<N>.npz``.

usage: train_session.py OUT [--api minimize|compute_apply] [--loop N] [--steps S]
                        [--optimizer adam|momentum] [--sharded]
"""
import argparse
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import while_v2

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.sessions.broadcast_hook import npu_hooks_append
from npu_bridge.distributed.optimizers.optimizer import NPUDistributedOptimizer

tf.compat.v1.disable_eager_execution()
GLOBAL_BATCH, DIM = 16, 5


def dataset(steps):
    rng = np.random.RandomState(7)
    x = rng.normal(size=(steps, GLOBAL_BATCH, DIM)).astype(np.float32)
    w = rng.normal(size=(DIM, 1)).astype(np.float32)
    y = np.tanh(x @ w) + 0.1 * rng.normal(size=(steps, GLOBAL_BATCH, 1)).astype(np.float32)
    return x, y.astype(np.float32)


def build(args, info):
    x_all, y_all = dataset(args.steps)
    per = GLOBAL_BATCH // info.rank_size
    shard = slice(info.rank_id * per, (info.rank_id + 1) * per)
    x_all, y_all = tf.constant(x_all[:, shard]), tf.constant(y_all[:, shard])
    tf.compat.v1.set_random_seed(1234 + 1000 * info.rank_id)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    with tf.compat.v1.variable_scope("model", use_resource=True):
        w1 = tf.compat.v1.get_variable("w1", [DIM, 8])
        b1 = tf.compat.v1.get_variable("b1", [8], initializer=tf.compat.v1.random_normal_initializer())
        w2 = tf.compat.v1.get_variable("w2", [8, 1])
    if args.optimizer == "adam":
        inner = tf.compat.v1.train.AdamOptimizer(0.05)
    else:
        inner = tf.compat.v1.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True)
    opt = NPUDistributedOptimizer(inner, is_weight_update_sharding=args.sharded)
    # Slots this rank holds (initialised, local); those of other ranks' variables exist
    # only as names for checkpoints, in no collection.
    build.slots = lambda: sorted(v.op.name for v in (w1, b1, w2)
                                 if any(inner.get_slot(v, s) in tf.compat.v1.local_variables()
                                        for s in inner.get_slot_names()))

    def step():
        x = tf.gather(x_all, global_step)
        y = tf.gather(y_all, global_step)
        pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2)
        loss = tf.reduce_mean(tf.square(pred - y))
        if args.api == "minimize":
            return opt.minimize(loss, global_step=global_step)
        gvs = opt.compute_gradients(loss)
        return opt.apply_gradients(gvs, global_step=global_step)

    if args.loop <= 1:
        return step()

    def body(i):
        with tf.control_dependencies([step()]):
            return i + 1

    return while_v2.while_loop(lambda i: i < args.loop, body, [tf.constant(0)],
                               parallel_iterations=1)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--api", default="minimize", choices=["minimize", "compute_apply"])
    parser.add_argument("--loop", type=int, default=1)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--optimizer", default="adam",
                        help="adam, momentum or both (adam,momentum: one graph after the other)")
    parser.add_argument("--sharded", action="store_true")
    parser.add_argument("--no-broadcast", action="store_true",
                        help="skip the broadcast hook (shows the seeds really differ)")
    args = parser.parse_args(argv)
    info = runtime.rank_info()
    optimizers = args.optimizer.split(",")
    for name in optimizers:
        if name not in ("adam", "momentum"):
            parser.error("--optimizer takes adam and/or momentum, got %r" % name)
        args.optimizer = name
        out = args.out if len(optimizers) == 1 else "%s.%s" % (args.out, name)
        train(args, info, out)


def train(args, info, out):
    with tf.compat.v1.Graph().as_default():
        train_op = build(args, info)
        runs = args.steps // max(args.loop, 1)
        hooks = [] if args.no_broadcast else npu_hooks_append([])
        with tf.compat.v1.train.MonitoredTrainingSession(
                master=runtime.ensure_server() or "", is_chief=True, hooks=hooks,
                config=runtime.session_config_for_rank(), checkpoint_dir=None,
                save_summaries_steps=None, save_summaries_secs=None,
                log_step_count_steps=None) as sess:
            for _ in range(runs):
                sess.run(train_op)
            values = {v.op.name.replace("/", "."): sess.run(v)
                      for v in tf.compat.v1.global_variables()}
        if args.sharded:
            print("SLOTS %s rank=%d vars=%s" % (args.optimizer, info.rank_id,
                                                ",".join(build.slots())))
    np.savez("%s.rank%d.npz" % (out, info.rank_id), **values)
    print("TRAIN_OK rank=%d step=%d" % (info.rank_id, values["global_step"]))

if __name__ == "__main__":
    sys.exit(main())
