"""Shim for the original path ``hccl.split``."""
