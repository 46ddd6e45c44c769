"""Original adapter path ``npu_bridge.hccl``: collective ops over ranks."""
