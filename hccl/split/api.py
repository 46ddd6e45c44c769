"""Shim for the original path ``hccl.split.api`` (gradient fusion split points)."""

from npu_bridge.migration.no_effect import (  # noqa: F401
    set_split_strategy_by_idx, set_split_strategy_by_size)

__all__ = ["set_split_strategy_by_idx", "set_split_strategy_by_size"]
