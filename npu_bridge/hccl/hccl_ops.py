"""Shim for the original path ``npu_bridge.hccl.hccl_ops``.

Same signatures as the Ascend adapter; the work is done by
``npu_bridge.distributed.collectives`` on TensorFlow's collective runtime.
``fusion`` / ``fusion_id`` are accepted for compatibility: our fusion is
explicit (``NPUDistributedOptimizer`` and ``broadcast`` of a list fuse per dtype).
"""

import numbers

from npu_bridge.distributed import collectives as _c
from npu_bridge.distributed import runtime as _rt

__all__ = ["allreduce", "allgather", "broadcast", "reduce_scatter",
           "get_rank_size", "get_rank_id", "get_local_rank_size", "get_local_rank_id"]

_WORLD = _c.WORLD_GROUP


def _check_int(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an int; got %s %r." % (name, type(value).__name__, value))


def _check_fusion(fusion, fusion_id):
    _check_int("fusion", fusion)
    _check_int("fusion_id", fusion_id)


def _check_rank_size(rank_size):
    _check_int("rank_size", rank_size)
    actual = _rt.rank_info().rank_size
    if rank_size != actual:
        raise ValueError("rank_size=%r does not match RANK_SIZE=%d" % (rank_size, actual))


def allreduce(tensor, reduction, fusion=1, fusion_id=-1, group=_WORLD):
    """Reduces ``tensor`` over ranks; reduction is "sum", "max", "min" or "prod"."""
    _check_fusion(fusion, fusion_id)
    if reduction not in ("sum", "max", "min", "prod"):
        raise ValueError('reduction must be "sum", "max", "min" or "prod", got %r' % (reduction,))
    return _c.allreduce(tensor, reduction, group)


def allgather(tensor, rank_size, group=_WORLD):
    """Concatenates every rank's ``tensor`` along dimension 0, in rank order."""
    _check_rank_size(rank_size)
    return _c.allgather(tensor, group)


def broadcast(tensor, root_rank, fusion=2, fusion_id=0, group=_WORLD):
    """root_rank's values on every rank; ``tensor`` is a list of tensors (or one)."""
    _check_fusion(fusion, fusion_id)
    return _c.broadcast(tensor, root_rank, group)


def reduce_scatter(tensor, reduction, rank_size, group=_WORLD):
    """Reduces over ranks and keeps this rank's slice of dimension 0."""
    _check_rank_size(rank_size)
    return _c.reduce_scatter(tensor, reduction, group)


def get_rank_size(group=_WORLD):
    """Number of ranks (``RANK_SIZE``)."""
    _c._group_key(group)
    return _rt.rank_info().rank_size


def get_rank_id(group=_WORLD):
    """This process's rank (``RANK_ID``)."""
    _c._group_key(group)
    return _rt.rank_info().rank_id


def get_local_rank_size(group=_WORLD):
    """Ranks on this host."""
    _c._group_key(group)
    return _rt.local_rank_info()[0]


def get_local_rank_id(group=_WORLD):
    """This rank's index among the ranks on this host."""
    _c._group_key(group)
    return _rt.local_rank_info()[1]
