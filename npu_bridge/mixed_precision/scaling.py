"""Graph pieces shared by the loss-scaling optimizers.

Scaling the loss, unscaling gradients, deciding "all gradients finite" (and
making every rank agree on it), and applying only when that holds.  On Ascend
the finite check reads the device's float-status register; on CPU/GPU we look
at the gradients themselves, which is what the register summarises.
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives


def agree_across_ranks(all_finite):
    """True on every rank iff ``all_finite`` is True on all ranks.

    Every rank must take the same skip/apply decision, or the replicas'
    variables drift apart.  A no-op on a single rank.
    """
    if not runtime.is_distributed():
        return all_finite
    return collectives.allreduce_flag_all(all_finite)


def average_across_ranks(grads):
    """Mean of each gradient over ranks (IndexedSlices made dense); no-op on one rank."""
    if not runtime.is_distributed():
        return list(grads)
    present = [i for i, g in enumerate(grads) if g is not None]
    dense = [tf.convert_to_tensor(grads[i]) for i in present]
    reduced = collectives.fused_allreduce(dense, "mean")
    out = list(grads)
    for i, g in zip(present, reduced):
        out[i] = g
    return out


def scale_loss(loss, loss_scale):
    """``loss * loss_scale`` in the loss's dtype; ``loss`` may be a callable."""
    value = loss() if callable(loss) else loss
    value = tf.convert_to_tensor(value)
    return value * tf.cast(loss_scale, value.dtype.base_dtype)


def _times(grad, factor):
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(grad.values * tf.cast(factor, grad.values.dtype),
                                grad.indices, grad.dense_shape)
    return grad * tf.cast(factor, grad.dtype.base_dtype)


def unscale(grads_and_vars, loss_scale):
    """Divides every gradient by the loss scale (None gradients pass through)."""
    inverse = tf.math.reciprocal(tf.cast(loss_scale, tf.float32))
    return [(None if g is None else _times(g, inverse), v)
            for g, v in grads_and_vars]


def all_finite(grads):
    """A bool scalar: no gradient holds inf or nan."""
    checks = []
    for g in grads:
        if g is None:
            continue
        values = g.values if isinstance(g, tf.IndexedSlices) else g
        checks.append(tf.reduce_all(tf.math.is_finite(values)))
    if not checks:
        return tf.constant(True)
    return tf.reduce_all(tf.stack(checks), name="all_grads_finite")


def apply_if(should_apply, apply_fn):
    """Runs ``apply_fn()`` (which returns an op) only when ``should_apply`` holds.

    Returns a bool tensor: whether the update ran.  A skipped step changes
    nothing, not even the global step (as in the original adapter and TF's
    own v1 loss-scale optimizer).
    """
    def apply_branch():
        with tf.control_dependencies([apply_fn()]):
            return tf.constant(True)

    return tf.cond(should_apply, apply_branch, lambda: tf.constant(False),
                   name="apply_if_finite")
