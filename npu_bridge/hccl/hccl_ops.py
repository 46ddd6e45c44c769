"""Shim for the original path ``npu_bridge.hccl.hccl_ops``."""
