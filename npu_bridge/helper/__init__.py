"""Shim for the original path ``npu_bridge.helper``."""
