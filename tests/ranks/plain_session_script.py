"""Rank script written like a migrated plain-Session script (default session target).

--mode mts:     MonitoredTrainingSession(hooks=npu_hooks_append(), config=npu_config_proto(...))
--mode session: tf.compat.v1.Session() with no config at all, variables broadcast
                with hccl_ops.broadcast, then a Saver checkpoint restored in a
                second session.
Each rank seeds differently and trains on its shard of every global batch;
without RANK_SIZE it trains on the whole batch (the reference).
Writes the final variables to ``<out>.rank<N>.npz``.
"""
from npu_bridge.npu_init import *

import sys

import numpy as np

tf.compat.v1.disable_eager_execution()
GLOBAL_BATCH, DIM, STEPS = 16, 5, 10
rank_size = int(os.getenv("RANK_SIZE", "1"))
rank_id = int(os.getenv("RANK_ID", "0"))


def broadcast_global_variables(root_rank):
    ops = []
    for var in tf.compat.v1.global_variables():
        if "float" in var.dtype.name:
            out = hccl_ops.broadcast(tensor=[var], root_rank=root_rank)
            ops.append(tf.compat.v1.assign(var, out[0]))
    return tf.group(ops)


def main(out, mode):
    rng = np.random.RandomState(3)
    x_all = rng.normal(size=(STEPS, GLOBAL_BATCH, DIM)).astype(np.float32)
    y_all = np.sin(x_all.sum(-1, keepdims=True)).astype(np.float32)
    per = GLOBAL_BATCH // rank_size
    shard = slice(rank_id * per, (rank_id + 1) * per)

    tf.compat.v1.set_random_seed(11 + 100 * rank_id)
    x = tf.compat.v1.placeholder(tf.float32, [per, DIM])
    y = tf.compat.v1.placeholder(tf.float32, [per, 1])
    gs = tf.compat.v1.train.get_or_create_global_step()
    with tf.compat.v1.variable_scope("model", use_resource=True):
        w1 = tf.compat.v1.get_variable("w1", [DIM, 8])
        b1 = tf.compat.v1.get_variable("b1", [8], initializer=tf.compat.v1.random_normal_initializer())
        w2 = tf.compat.v1.get_variable("w2", [8, 1])
    pred = tf.matmul(tf.nn.tanh(tf.matmul(x, w1) + b1), w2)
    loss = tf.reduce_mean(tf.square(pred - y))
    opt = NPUDistributedOptimizer(tf.compat.v1.train.AdamOptimizer(0.01))
    train_op = opt.minimize(loss, global_step=gs)
    feeds = [{x: x_all[k, shard], y: y_all[k, shard]} for k in range(STEPS)]

    if mode == "mts":
        config = npu_config_proto(config_proto=tf.compat.v1.ConfigProto())
        with tf.compat.v1.train.MonitoredTrainingSession(hooks=npu_hooks_append(),
                                                         config=config) as sess:
            for feed in feeds:
                sess.run(train_op, feed_dict=feed)
            values = {v.op.name: sess.run(v) for v in tf.compat.v1.global_variables()}
    else:
        init = tf.compat.v1.global_variables_initializer()
        bcast = broadcast_global_variables(0)
        saver = tf.compat.v1.train.Saver()
        ckpt = "%s.rank%d.ckpt" % (out, rank_id)
        with tf.compat.v1.Session() as sess:
            sess.run(init)
            if rank_size > 1:
                sess.run(bcast)
            for feed in feeds:
                sess.run(train_op, feed_dict=feed)
            values = {v.op.name: sess.run(v) for v in tf.compat.v1.global_variables()}
            saver.save(sess, ckpt)
        with tf.compat.v1.Session() as sess:  # a second session starts empty, as locally
            assert len(sess.run(tf.compat.v1.report_uninitialized_variables())) > 0
            saver.restore(sess, ckpt)
            for v in tf.compat.v1.global_variables():
                assert np.array_equal(sess.run(v), values[v.op.name]), v.op.name

    np.savez("%s.rank%d.npz" % (out, rank_id), **{k.replace("/", "."): v for k, v in values.items()})
    print("SCRIPT_OK rank=%d step=%d" % (rank_id, values["global_step"]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
