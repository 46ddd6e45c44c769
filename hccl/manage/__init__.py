"""Shim for the original path ``hccl.manage``."""
