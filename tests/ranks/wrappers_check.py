"""Rank script: every optimizer wrapper averages gradients; a Keras fit with the callback ends equal.

Writes ``<prefix>.rank<N>.npz`` with the trained Keras weights for the test to compare.
"""
import sys

import numpy as np

from npu_bridge.npu_init import *  # noqa: F401,F403  (as migrated scripts do)
import tensorflow as tf  # noqa: E402
from npu_bridge.estimator.npu.npu_optimizer import allreduce as npu_optimizer_allreduce  # noqa: E402

tf.compat.v1.disable_eager_execution()


def check_gradients():
    rank, size = get_rank_id(), get_rank_size()
    want = np.mean([np.arange(3) + r + 1 for r in range(size)], axis=0)
    w = tf.compat.v1.get_variable("w", initializer=tf.zeros([3]))
    x = tf.constant(np.arange(3, dtype=np.float32) + rank + 1)
    loss = tf.reduce_sum(w * x)
    grads = {
        "npu_tf_optimizer": npu_tf_optimizer(
            tf.compat.v1.train.GradientDescentOptimizer(0.1)).compute_gradients(loss, [w])[0][0],
        "wrapper_tf": npu_distributed_optimizer_wrapper(
            tf.compat.v1.train.AdamOptimizer(0.1)).compute_gradients(loss, [w])[0][0],
        "npu_keras_optimizer": npu_keras_optimizer(
            tf.keras.optimizers.legacy.SGD(0.1)).get_gradients(loss, [w])[0],
        "KerasDistributeOptimizer": KerasDistributeOptimizer(
            tf.keras.optimizers.legacy.Adam(0.1)).get_gradients(loss, [w])[0],
        "wrapper_keras": npu_distributed_optimizer_wrapper(
            tf.keras.optimizers.legacy.RMSprop(0.1)).get_gradients(loss, [w])[0],
        "npu_allreduce": npu_allreduce(x),
        "npu_optimizer.allreduce": npu_optimizer_allreduce(x),
    }
    summed = npu_optimizer_allreduce(x, average=False)
    gathered = npu_optimizer_allreduce(tf.IndexedSlices(x[:1], tf.constant([rank]),
                                                        tf.constant([3])))
    sess, shutdown = init_resource()
    sess.run(tf.compat.v1.global_variables_initializer())
    got = sess.run(grads)
    np.testing.assert_allclose(sess.run(summed), want * size, rtol=1e-6)
    values, indices = sess.run([gathered.values, gathered.indices])
    np.testing.assert_allclose(values, [(r + 1) / size for r in range(size)], rtol=1e-6)
    assert indices.tolist() == list(range(size))
    shutdown_resource(sess, shutdown)
    close_session(sess)
    for name, value in got.items():
        np.testing.assert_allclose(value, want, rtol=1e-6, err_msg=name)
    print("GRADS_OK rank=%d %s" % (rank, sorted(got)))


def train_keras(prefix):
    rank = get_rank_id()
    tf.compat.v1.reset_default_graph()
    set_keras_session_npu_config()
    tf.compat.v1.set_random_seed(rank)  # different initial weights on each rank
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    model.compile(npu_keras_optimizer(tf.keras.optimizers.legacy.SGD(0.05)), "mse")
    rng = np.random.RandomState(10 + rank)  # and different data
    x = rng.rand(32, 3).astype(np.float32)
    y = x.sum(1, keepdims=True)
    model.fit(x, y, batch_size=8, epochs=2, verbose=0,
              callbacks=npu_callbacks_append([]))
    weights = model.get_weights()
    np.savez("%s.rank%d.npz" % (prefix, rank), *weights)
    print("KERAS_OK rank=%d" % rank)


if __name__ == "__main__":
    check_gradients()
    train_keras(sys.argv[1])
