"""Shim for the original path ``npu_bridge.estimator.npu_ops``."""
