"""Shim for the original path ``hccl.manage.api``: rank queries and process groups.

Same signatures as the original; groups live in ``npu_bridge.distributed.groups``
and collectives of ``npu_bridge.hccl.hccl_ops`` accept their names.
"""

from npu_bridge.distributed.groups import create_group, destroy_group  # noqa: F401
from npu_bridge.distributed import groups as _groups
from npu_bridge.hccl.hccl_ops import (  # noqa: F401
    get_local_rank_id, get_local_rank_size, get_rank_id, get_rank_size)

__all__ = ["create_group", "destroy_group", "get_rank_size", "get_local_rank_size",
           "get_rank_id", "get_local_rank_id", "get_world_rank_from_group_rank",
           "get_group_rank_from_world_rank"]


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of the member ``group_rank_id`` of ``group``."""
    return _groups.world_rank_from_group_rank(group, group_rank_id)


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank within ``group`` of world rank ``world_rank_id``."""
    return _groups.group_rank_from_world_rank(world_rank_id, group)
