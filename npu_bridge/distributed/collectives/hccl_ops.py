"""Collectives and rank queries with the Ascend adapter's signatures (``npu_bridge.hccl.hccl_ops``).

Same signatures as the original; the work is done by ``collectives`` and
``groups`` on TensorFlow's collective runtime.
``fusion`` / ``fusion_id`` are accepted for compatibility: our fusion is
explicit (``NPUDistributedOptimizer`` and ``broadcast`` of a list fuse per dtype).
"""

from npu_bridge.distributed.collectives import collectives as _c
from npu_bridge.distributed.collectives import groups as _groups
from npu_bridge.distributed.cluster import runtime as _rt
from npu_bridge.common.checks import check_int

__all__ = ["allreduce", "allgather", "broadcast", "reduce_scatter",
           "get_rank_size", "get_rank_id", "get_local_rank_size", "get_local_rank_id"]

_WORLD = _c.WORLD_GROUP


def _check_int(name, value):
    check_int(name, value, low=None, high=None)


def _check_fusion(fusion, fusion_id):
    _check_int("fusion", fusion)
    _check_int("fusion_id", fusion_id)


def _check_rank_size(rank_size, group):
    _check_int("rank_size", rank_size)
    found = _groups.get_group(group)
    actual = len(found.ranks)
    if rank_size != actual:
        where = ("RANK_SIZE=%d" % actual if found.name == _WORLD
                 else "the %d ranks of group %r" % (actual, found.name))
        raise ValueError("rank_size=%r does not match %s" % (rank_size, where))


def allreduce(tensor, reduction, fusion=1, fusion_id=-1, group=_WORLD):
    """Reduces ``tensor`` over ranks; reduction is "sum", "max", "min" or "prod"."""
    _check_fusion(fusion, fusion_id)
    if reduction not in ("sum", "max", "min", "prod"):
        raise ValueError('reduction must be "sum", "max", "min" or "prod", got %r' % (reduction,))
    return _c.allreduce(tensor, reduction, group)


def allgather(tensor, rank_size, group=_WORLD):
    """Concatenates every rank's ``tensor`` along dimension 0, in rank order."""
    _check_rank_size(rank_size, group)
    return _c.allgather(tensor, group)


def broadcast(tensor, root_rank, fusion=2, fusion_id=0, group=_WORLD):
    """root_rank's values on every rank; ``tensor`` is a list of tensors (or one)."""
    _check_fusion(fusion, fusion_id)
    return _c.broadcast(tensor, root_rank, group)


def reduce_scatter(tensor, reduction, rank_size, group=_WORLD):
    """Reduces over ranks and keeps this rank's slice of dimension 0."""
    _check_rank_size(rank_size, group)
    return _c.reduce_scatter(tensor, reduction, group)


def get_rank_size(group=_WORLD):
    """Number of ranks in ``group`` (the world: ``RANK_SIZE``)."""
    return len(_groups.get_group(group).ranks)


def get_rank_id(group=_WORLD):
    """This process's rank within ``group`` (the world: ``RANK_ID``)."""
    return _groups.group_rank(group)


def get_local_rank_size(group=_WORLD):
    """Ranks of ``group`` on this host."""
    return _local(group)[0]


def get_local_rank_id(group=_WORLD):
    """This rank's index among the ranks of ``group`` on this host."""
    return _local(group)[1]


def _local(group):
    members = _groups.get_group(group).ranks
    me = _rt.rank_info().rank_id
    local_size, local_id = _rt.local_rank_info()
    if members == tuple(range(_rt.rank_info().rank_size)):
        return local_size, local_id
    hosts = _rt.rank_info().hosts
    mine = hosts[me].rsplit(":", 1)[0]
    local = [r for r in members if hosts[r].rsplit(":", 1)[0] == mine]
    if me not in local:
        raise ValueError("this rank (%d) is not in group %r" % (me, group))
    return len(local), local.index(me)


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of the member ``group_rank_id`` of ``group`` (``hccl.manage.api``)."""
    return _groups.world_rank_from_group_rank(group, group_rank_id)


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank within ``group`` of world rank ``world_rank_id`` (``hccl.manage.api``)."""
    return _groups.group_rank_from_world_rank(world_rank_id, group)
