"""Shim for the original path ``npu_bridge.estimator.npu.npu_loss_scale_optimizer``."""

from npu_bridge.mixed_precision.loss_scale_optimizer import NPULossScaleOptimizer

__all__ = ["NPULossScaleOptimizer"]
