"""Original path ``npu_bridge.hccl.hccl_ops``: re-exports ``npu_bridge.distributed.collectives.hccl_ops``."""

from npu_bridge.distributed.collectives.hccl_ops import (  # noqa: F401
    __all__, allgather, allreduce, broadcast, get_local_rank_id, get_local_rank_size,
    get_rank_id, get_rank_size, reduce_scatter)
