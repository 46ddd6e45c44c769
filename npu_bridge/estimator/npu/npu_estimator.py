"""Shim for the original path ``npu_bridge.estimator.npu.npu_estimator``."""

from npu_bridge.core.estimator import NPUEstimator
from npu_bridge.core.spec import NPUEstimatorSpec

__all__ = ["NPUEstimator", "NPUEstimatorSpec"]
