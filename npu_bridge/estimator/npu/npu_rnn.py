"""Shim for the original path ``npu_bridge.estimator.npu.npu_rnn``."""

from npu_bridge.migration.rnn import npu_dynamic_rnn  # noqa: F401

__all__ = ["npu_dynamic_rnn"]
