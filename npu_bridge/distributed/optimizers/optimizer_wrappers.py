"""Gradient averaging for every optimizer kind a migrated script may hold.

The migration tool wraps optimizers in one of several ways; all of them mean
"average the gradients over ranks before applying them", as
``NPUDistributedOptimizer`` does for ``tf.compat.v1.train.Optimizer``:

``npu_tf_optimizer(opt)``
    ``NPUDistributedOptimizer(opt)``.
``KerasDistributeOptimizer(opt)`` / ``npu_keras_optimizer(opt)``
    A Keras optimizer (legacy ``OptimizerV2`` or the new ``Optimizer``) whose
    gradient methods return rank-averaged gradients.  The optimizer object
    itself is returned, patched, rather than wrapped in a proxy: its slots,
    hyper-parameters, checkpoints and ``model.compile`` keep working, and
    ``isinstance(opt, KerasDistributeOptimizer)`` is true for it.
``npu_distributed_optimizer_wrapper(opt)``
    Any of the above (or a Keras optimizer name): every gradient method the
    object has (``compute_gradients``, ``get_gradients``, ``_compute_gradients``)
    averages.  Single process: nothing changes.
``npu_allreduce(values, reduction="mean", ...)`` / ``allreduce(tensor, average=True)``
    The collectives those wrappers use, for scripts that call them directly.

Graph-mode code averages with collectives in its own graph (sessions on each
rank's server, see ``runtime``); eager code (TF2 Keras ``fit``) through a
session of its own on that server (``eager_ranks``).
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives, groups
from npu_bridge.distributed.optimizers.optimizer import NPUDistributedOptimizer, average_gradients

_PATCHED = "_npu_bridge_averages_gradients"


def _average_list(grads, params):
    if not runtime.is_distributed():
        return grads
    return [g for g, _ in average_gradients(zip(grads, params))]


def _patch(optimizer):
    """Makes every gradient method ``optimizer`` has return rank-averaged gradients."""
    if getattr(optimizer, _PATCHED, False):
        return optimizer
    if hasattr(optimizer, "compute_gradients"):
        original_compute = optimizer.compute_gradients

        def compute_gradients(*args, **kwargs):
            return average_gradients(original_compute(*args, **kwargs))
        optimizer.compute_gradients = compute_gradients
    if hasattr(optimizer, "get_gradients"):
        original_get = optimizer.get_gradients

        def get_gradients(loss, params):
            return _average_list(original_get(loss, params), params)
        optimizer.get_gradients = get_gradients
    if hasattr(optimizer, "_compute_gradients"):
        original_private = optimizer._compute_gradients  # pylint: disable=protected-access

        def _compute_gradients(*args, **kwargs):
            return average_gradients(original_private(*args, **kwargs))
        optimizer._compute_gradients = _compute_gradients  # pylint: disable=protected-access
    setattr(optimizer, _PATCHED, True)
    return optimizer


def _is_keras_optimizer(optimizer):
    bases = (tf.keras.optimizers.Optimizer, tf.keras.optimizers.legacy.Optimizer)
    return isinstance(optimizer, bases)


class _PatchedInstances(type):
    """Calling the class patches and returns the optimizer; isinstance recognises it."""

    def __call__(cls, optimizer, name="NpuKerasOptimizer", **kwargs):
        del name, kwargs  # the optimizer keeps its own name and settings
        if not _is_keras_optimizer(optimizer):
            raise TypeError("KerasDistributeOptimizer wraps a tf.keras optimizer; got %s "
                            "(use NPUDistributedOptimizer for tf.compat.v1.train optimizers)"
                            % type(optimizer).__name__)
        return _patch(optimizer)

    def __instancecheck__(cls, instance):
        return _is_keras_optimizer(instance) and getattr(instance, _PATCHED, False)


class KerasDistributeOptimizer(metaclass=_PatchedInstances):
    """``KerasDistributeOptimizer(optimizer, name="NpuKerasOptimizer")``: see the module doc."""


def npu_keras_optimizer(opt):
    """The Keras optimizer ``opt`` averaging its gradients over ranks."""
    return KerasDistributeOptimizer(opt)


def npu_tf_optimizer(opt):
    """``NPUDistributedOptimizer(opt)``, as the migration tool writes it."""
    return NPUDistributedOptimizer(opt)


def npu_distributed_optimizer_wrapper(optimizer):
    """``optimizer`` (or the Keras optimizer named so) with rank-averaged gradients."""
    if isinstance(optimizer, str):
        optimizer = tf.keras.optimizers.get(optimizer)
    if not any(hasattr(optimizer, m) for m in
               ("compute_gradients", "get_gradients", "_compute_gradients")):
        raise TypeError("npu_distributed_optimizer_wrapper expects a TensorFlow or Keras "
                        "optimizer (or a Keras optimizer name); got %s"
                        % type(optimizer).__name__)
    return _patch(optimizer)


def allreduce(tensor, average=True):
    """Sum (or mean, with ``average``) of ``tensor`` over all ranks.

    A ``tf.IndexedSlices`` is gathered instead (values and indices of every
    rank, values divided by the rank count when averaging), as in the original.
    """
    if isinstance(tensor, tf.IndexedSlices):
        values = collectives.allgather(tensor.values)
        indices = collectives.allgather(tensor.indices)
        if average:
            values = values / tf.cast(runtime.rank_info().rank_size, values.dtype)
        return tf.IndexedSlices(values, indices, dense_shape=tensor.dense_shape)
    return collectives.allreduce(tensor, "mean" if average else "sum")


def npu_allreduce(values, reduction="mean", fusion=1, fusion_id=-1, group="hccl_world_group"):
    """All-reduce of a tensor or a list of tensors; ``reduction`` "mean", "sum", "max", "min", "prod"."""
    del fusion, fusion_id
    single = not isinstance(values, (list, tuple))
    out = []
    for value in ([values] if single else values):
        if isinstance(value, tf.IndexedSlices):
            if reduction not in ("mean", "sum"):
                raise ValueError("npu_allreduce of IndexedSlices supports reduction "
                                 "'mean' or 'sum'; got %r" % (reduction,))
            size = len(groups.get_group(group).ranks)
            gathered = collectives.allgather(value.values, group)
            if reduction == "mean":
                gathered = gathered / tf.cast(size, gathered.dtype)
            out.append(tf.IndexedSlices(gathered, collectives.allgather(value.indices, group),
                                        dense_shape=value.dense_shape))
        else:
            out.append(collectives.allreduce(value, reduction, group))
    return out[0] if single else out
