"""Loss scaling for mixed precision training: managers and optimizer wrappers.

The original adapter builds these on TF1 contrib's LossScaleManager API and
Ascend's float-status registers; here the same contract is met with plain
TensorFlow ops (``tf.math.is_finite`` on the gradients).
"""

from npu_bridge.mixed_precision.loss_scale_manager import (
    ExponentialUpdateLossScaleManager, FixedLossScaleManager, LossScaleManager)
from npu_bridge.mixed_precision.loss_scale_optimizer import NPULossScaleOptimizer
from npu_bridge.mixed_precision.npu_optimizer import NPUOptimizer

__all__ = ["LossScaleManager", "FixedLossScaleManager",
           "ExponentialUpdateLossScaleManager", "NPULossScaleOptimizer",
           "NPUOptimizer"]
