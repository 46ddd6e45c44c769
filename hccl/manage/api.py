"""Original path ``hccl.manage.api``: rank queries and process groups (re-exported).

Groups live in ``npu_bridge.distributed.collectives.groups``; collectives of
``npu_bridge.hccl.hccl_ops`` accept their names.
"""

from npu_bridge.distributed.collectives.groups import create_group, destroy_group  # noqa: F401
from npu_bridge.distributed.collectives.hccl_ops import (  # noqa: F401
    get_group_rank_from_world_rank, get_local_rank_id, get_local_rank_size, get_rank_id,
    get_rank_size, get_world_rank_from_group_rank)

__all__ = ["create_group", "destroy_group", "get_rank_size", "get_local_rank_size",
           "get_rank_id", "get_local_rank_id", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank"]
