"""``tf.contrib.mixed_precision``: loss scaling, as npu_bridge's loss scaling does it.

``LossScaleOptimizer(opt, loss_scale_manager)`` scales the loss, unscales
the gradients and skips a step whose gradients hold inf/nan, as TF 1.15's
did; ``FixedLossScaleManager(loss_scale)`` and
``ExponentialUpdateLossScaleManager(init_loss_scale, incr_every_n_steps,
decr_every_n_nan_or_inf=2, incr_ratio=2, decr_ratio=0.8)`` are the same
managers (``npu_bridge.mixed_precision``).
"""

from npu_bridge.mixed_precision import (ExponentialUpdateLossScaleManager,  # noqa: F401
                                        FixedLossScaleManager, LossScaleManager,
                                        NPULossScaleOptimizer)
from npu_bridge.tf1.errors import not_provided_getattr


def LossScaleOptimizer(opt, loss_scale_manager):
    """TF 1.15's contrib LossScaleOptimizer: ``opt`` with ``loss_scale_manager``'s loss scaling."""
    return NPULossScaleOptimizer(opt, loss_scale_manager)


__getattr__ = not_provided_getattr("tf.contrib.mixed_precision")
