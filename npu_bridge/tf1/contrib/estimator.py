"""``tf.contrib.estimator``: the Estimator extras that moved into tensorflow-estimator.

``add_metrics``, the early-stopping hooks
(``stop_if_no_decrease_hook`` ...), ``InMemoryEvaluatorHook``,
``RNNClassifier`` ... are tensorflow-estimator 2.15's.
``clip_gradients_by_norm(optimizer, clip_norm)`` (small code of ours) wraps
a ``tf.compat.v1.train.Optimizer`` so its gradients are clipped to a global
norm of ``clip_norm`` before they are applied, as TF 1.15's did.
``replicate_model_fn``/``TowerOptimizer`` (in-graph replication over the
GPUs of one machine) are not provided: npu_bridge's ranks do that job.
"""

import tensorflow as tf
from tensorflow_estimator.python.estimator import extenders as _extenders

from npu_bridge.mixed_precision.loss_scale_optimizer import DelegatingOptimizer, check_optimizer
from npu_bridge.tf1.errors import first_of, not_provided_getattr

add_metrics = _extenders.add_metrics


class _GradientClippingOptimizer(DelegatingOptimizer):
    def __init__(self, opt, clip_norm):
        super().__init__(opt, name="ClipByNorm" + type(opt).__name__)
        self._clip_norm = clip_norm

    def compute_gradients(self, *args, **kwargs):
        grads_and_vars = self._opt.compute_gradients(*args, **kwargs)
        kept = [(g, v) for g, v in grads_and_vars if g is not None]
        clipped, _ = tf.clip_by_global_norm([g for g, _ in kept], self._clip_norm)
        clipped_by_var = {id(v): g for g, (_, v) in zip(clipped, kept)}
        return [(clipped_by_var.get(id(v)), v) for _, v in grads_and_vars]

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name)


def clip_gradients_by_norm(optimizer, clip_norm):
    """``optimizer`` whose gradients are clipped to global norm ``clip_norm`` before applying."""
    check_optimizer("clip_gradients_by_norm", optimizer)
    return _GradientClippingOptimizer(optimizer, clip_norm)


_RANKS = ("wrap the optimizer in NPUDistributedOptimizer and run ranks with npu-bridge-launch "
          "(see README, Data-parallel ranks)")

__getattr__ = not_provided_getattr(
    "tf.contrib.estimator", first_of(tf.compat.v1.estimator.experimental,
                                     tf.estimator.experimental),
    instead={"replicate_model_fn": _RANKS, "TowerOptimizer": _RANKS})
