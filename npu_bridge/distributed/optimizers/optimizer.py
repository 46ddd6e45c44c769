"""NPUDistributedOptimizer: average gradients over ranks before applying them.

Wraps a ``tf.compat.v1.train.Optimizer``.  ``compute_gradients`` (and so
``minimize``) returns gradients already averaged over all ranks, fused into
one all-reduce per dtype; ``apply_gradients`` is the wrapped optimizer's.
Because the all-reduce hands every rank the same bits, ranks that start from
the same variables (see NPUBroadcastGlobalVariablesHook) stay bitwise equal.

With ``is_weight_update_sharding=True`` each rank updates only its own shard
of the variables (``weight_sharding``).

In eager code (TF2 Keras ``fit`` through the migration tool's wrappers) the
same all-reduce runs through a session on the rank's server (``eager_ranks``).

Single process (RANK_SIZE unset or 1): a transparent pass-through.
Env ``NPU_BRIDGE_GRAD_FUSION=0`` turns fusion off (one all-reduce per
gradient), for benchmarking.
"""

import os

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.distributed.optimizers import weight_sharding
from npu_bridge.distributed.sessions import eager_ranks

FUSION_ENV = "NPU_BRIDGE_GRAD_FUSION"


def fusion_enabled():
    """Gradient fusion is on unless NPU_BRIDGE_GRAD_FUSION is 0/false/off."""
    return os.environ.get(FUSION_ENV, "1").strip().lower() not in ("0", "false", "off", "no")


def average_gradients(grads_and_vars):
    """grads_and_vars with every gradient averaged over ranks (None kept as None)."""
    grads_and_vars = list(grads_and_vars)
    if not runtime.is_distributed():
        return grads_and_vars
    live = [i for i, (g, _) in enumerate(grads_and_vars) if g is not None]
    # sparse gradients (embedding lookups) are reduced dense: simple and exact
    grads = [tf.convert_to_tensor(grads_and_vars[i][0]) for i in live]
    if tf.compat.v1.executing_eagerly_outside_functions():
        fused, single = eager_ranks.allreduce, lambda g: eager_ranks.allreduce([g])[0]
    else:
        fused, single = collectives.fused_allreduce, lambda g: collectives.allreduce(g, "mean")
    if fusion_enabled():
        reduced = fused(grads, "mean")
    else:
        reduced = [single(g) for g in grads]
    out = list(grads_and_vars)
    for i, g in zip(live, reduced):
        out[i] = (g, grads_and_vars[i][1])
    return out


class NPUDistributedOptimizer(tf.compat.v1.train.Optimizer):
    """Optimizer wrapper averaging gradients across RANK_SIZE ranks each step.

    ``is_weight_update_sharding=True``: each rank applies the update to its
    own shard of the variables and broadcasts the results, so the optimizer's
    slots live once across ranks (see ``weight_sharding``).  Single process:
    no effect.
    """

    def __init__(self, optimizer, is_weight_update_sharding=False, name=None):
        if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
            raise TypeError("NPUDistributedOptimizer wraps a tf.compat.v1.train.Optimizer, "
                            "got %s" % type(optimizer).__name__)
        if name is None:
            name = "Distributed" + type(optimizer).__name__
        super().__init__(use_locking=False, name=name)
        self._optimizer = optimizer
        self._is_weight_update_sharding = bool(is_weight_update_sharding)

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients, averaged over ranks."""
        return average_gradients(self._optimizer.compute_gradients(*args, **kwargs))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if self._is_weight_update_sharding and runtime.is_distributed():
            return weight_sharding.sharded_apply_gradients(
                self._optimizer, grads_and_vars, global_step, name)
        return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()
