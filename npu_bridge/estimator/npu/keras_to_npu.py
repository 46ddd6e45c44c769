"""Shim for the original path ``npu_bridge.estimator.npu.keras_to_npu``."""

from npu_bridge.migration.hardware_options import model_to_npu_estimator  # noqa: F401

__all__ = ["model_to_npu_estimator"]
