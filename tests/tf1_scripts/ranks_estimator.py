"""TF 1.15 style, two ranks: NPUEstimator with NPUDistributedOptimizer(tf.train.MomentumOptimizer).

Each rank starts from its own random init (seeded by RANK_ID) and reads its
own shard; the broadcast hook and the gradient all-reduce must leave every
rank with the same variables.  Prints ``VARS rank=N {json}`` at the end.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

rank_size = int(os.getenv("RANK_SIZE", "1"))
rank_id = int(os.getenv("RANK_ID", "0"))


def input_fn():
    rng = np.random.RandomState(7)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(rank_size, rank_id)
    return ds.repeat().batch(4, drop_remainder=True)


def model_fn(features, labels, mode):
    init = tf.random_normal_initializer(stddev=1.0, seed=10 + rank_id)
    net = tf.layers.dense(features, 8, activation=tf.nn.tanh, kernel_initializer=init, name="h")
    pred = tf.layers.dense(net, 1, kernel_initializer=init, name="out")
    loss = tf.reduce_mean(tf.square(pred - labels))
    opt = NPUDistributedOptimizer(tf.train.MomentumOptimizer(0.05, 0.9))
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


class PrintVariables(tf.train.SessionRunHook):
    def end(self, session):
        variables = tf.global_variables()
        values = session.run(variables)
        print("VARS rank=%d %s" % (rank_id, json.dumps(
            {v.op.name: np.asarray(x).tolist() for v, x in zip(variables, values)})))


config = NPURunConfig(model_dir=sys.argv[1],
                      iterations_per_loop=4, save_checkpoints_steps=12)
estimator = NPUEstimator(model_fn=model_fn, config=config)
estimator.train(input_fn, max_steps=12, hooks=npu_hooks_append([PrintVariables()]))
