"""Shim for the original path ``npu_bridge.estimator.npu.npu_strategy``."""

from npu_bridge.migration.hardware_options import NPUStrategy  # noqa: F401

__all__ = ["NPUStrategy"]
