"""Shim for the original path ``npu_bridge.estimator.npu.npu_loss_scale_manager``."""

from npu_bridge.mixed_precision.loss_scale_manager import (  # noqa: F401
    ExponentialUpdateLossScaleManager, FixedLossScaleManager, LossScaleManager)

__all__ = ["FixedLossScaleManager", "ExponentialUpdateLossScaleManager"]
