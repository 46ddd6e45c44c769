"""Rank script: TF2 eager Keras ``model.fit`` with the migration tool's optimizer wrappers.

Each rank starts from its own weights (rank 0's equal the one-process run's) and
fits its half of every global batch; without RANK_SIZE it is the one-process
reference on the whole batch. Writes ``<prefix>.<variant>.rank<N>.npz`` (model
weights, then the optimizer's variables).

usage: keras_eager.py PREFIX
"""
import sys

import numpy as np

from npu_bridge.npu_init import *  # noqa: F401,F403  (as migrated scripts do)
import tensorflow as tf  # noqa: E402

GLOBAL_BATCH, STEPS = 16, 6


def data(rank, size):
    """This rank's rows of every global batch, in order."""
    rng = np.random.RandomState(7)
    x = rng.rand(GLOBAL_BATCH * STEPS, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.1).astype(np.float32)
    per = GLOBAL_BATCH // size
    rows = [b * GLOBAL_BATCH + rank * per + i for b in range(STEPS) for i in range(per)]
    return x[rows], y[rows], per


def model_for(rank):
    init = tf.keras.initializers.GlorotUniform(seed=11 + 5 * rank)
    return tf.keras.Sequential([
        tf.keras.layers.Dense(6, activation="tanh", input_shape=(3,), kernel_initializer=init),
        tf.keras.layers.Dense(1, kernel_initializer=init)])


VARIANTS = {
    "npu_keras_optimizer": lambda: npu_keras_optimizer(tf.keras.optimizers.SGD(0.1)),
    "KerasDistributeOptimizer": lambda: KerasDistributeOptimizer(
        tf.keras.optimizers.legacy.Adam(0.02)),
    "npu_distributed_optimizer_wrapper": lambda: npu_distributed_optimizer_wrapper(
        tf.keras.optimizers.Adam(0.02)),
}


def main(prefix):
    assert tf.executing_eagerly()
    rank, size = get_rank_id(), get_rank_size()
    x, y, batch = data(rank, size)
    for name, make_optimizer in VARIANTS.items():
        model = model_for(rank)
        optimizer = make_optimizer()
        model.compile(optimizer, "mse")
        model.fit(x, y, batch_size=batch, epochs=2, shuffle=False, verbose=0,
                  callbacks=npu_callbacks_append([]))
        slots = optimizer.variables
        slots = slots() if callable(slots) else slots
        np.savez("%s.%s.rank%d.npz" % (prefix, name, rank),
                 *(model.get_weights() + [v.numpy() for v in slots]))
        print("KERAS_EAGER_OK rank=%d %s" % (rank, name))


if __name__ == "__main__":
    main(sys.argv[1])
