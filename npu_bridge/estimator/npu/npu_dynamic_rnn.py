"""Shim for the original path ``npu_bridge.estimator.npu.npu_dynamic_rnn``."""

from npu_bridge.migration.rnn import (  # noqa: F401
    DYNAMIC_RNN_BIDIRECTION, DYNAMIC_RNN_UNIDIRECTION, DynamicAUGRU, DynamicGRUV2, DynamicRNN)

__all__ = ["DynamicRNN", "DynamicGRUV2", "DynamicAUGRU"]
