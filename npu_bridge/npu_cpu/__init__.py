"""Shim for the original path ``npu_bridge.npu_cpu``."""
