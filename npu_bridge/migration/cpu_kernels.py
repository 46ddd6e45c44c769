"""Ascend's AI-CPU kernels (``npu_bridge.npu_cpu.npu_cpu_ops``): the sampling one, in stock ops.

``randomchoicewithmask(x, count, seed=0, seed2=0)`` picks ``count`` of the
True positions of the boolean tensor ``x`` at random, as detection scripts
sample foreground and background anchors: ``(index, mask)``, ``index``
int32 [count, rank(x)] holding the coordinates, ``mask`` bool [count] saying
which rows are real when ``x`` has fewer than ``count`` True positions (the
rest are zeros). ``seed``/``seed2`` are the op seeds of TensorFlow's
shuffle: both 0 draws differently every run, as the original.

Every other name (the embedding-cache and host-address kernels) raises
NotImplementedError naming it: they read memory by device address, which
has no meaning outside Ascend's runtime.
"""

import tensorflow as tf

from npu_bridge.common.checks import check_int


def randomchoicewithmask(x, count, seed=0, seed2=0, name=None):
    """(index [count, rank] int32, mask [count] bool): ``count`` random True positions of ``x``."""
    count = check_int("randomchoicewithmask count", count)
    with tf.name_scope(name or "RandomChoiceWithMask"):
        x = tf.convert_to_tensor(x, dtype=tf.bool, name="x")
        positions = tf.cast(tf.where(x), tf.int32)
        shuffled = tf.raw_ops.RandomShuffle(value=positions, seed=seed, seed2=seed2)
        taken = shuffled[:count]
        found = tf.shape(taken)[0]
        index = tf.pad(taken, [[0, count - found], [0, 0]])
        if x.shape.rank is not None:
            index.set_shape([count, x.shape.rank])
        mask = tf.range(count) < found
        return index, mask


def cpu_kernel(name):
    """A module ``__getattr__`` for ``npu_cpu_ops``: the kernels not provided raise on use."""
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(
        "npu_bridge: npu_cpu_ops.%s is an Ascend AI-CPU kernel with no stock TensorFlow "
        "implementation here" % name)
