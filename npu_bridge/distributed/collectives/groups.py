"""Process groups: named subsets of ranks that collectives can run within.

HCCL scripts call ``create_group("g", 2, [0, 1])`` on the member ranks and then
pass ``group="g"`` to collectives.  TensorFlow's collective runtime has the
same idea: a collective op names a ``group_key`` and a ``group_size``, and the
runtime gathers the devices of every op sharing that key.  So a group here is
a registry entry: its world ranks (sorted) and a group key.

Keys must agree on every member without talking: they are derived from the
group's name and members (a checksum), never from a counter, because only the
members call ``create_group``.  Instance keys come from one counter per group
(``next_instance_key(group)``) for the same reason: members of a group build
that group's collectives in the same order, but ranks in other groups build
other things in between.  The world group (``hccl_world_group``) always exists
and keeps its own counter.

Every subgroup's counter starts at the same value.  TensorFlow keys instances
by group, so equal instance keys in different groups do not meet; and the
distributed runtime numbers a run's collective steps by the set of instance
keys the run contains, which must then be equal on all ranks sharing a world
collective in that run.  With a common start, the usual symmetric program
(every rank reduces within its own group, then over the world) gives every
rank the same set, so group and world collectives can share one Session.run.
"""

import collections
import itertools
import threading
import zlib

from npu_bridge.distributed.cluster import runtime

WORLD_GROUP = "hccl_world_group"
WORLD_GROUP_KEY = 1
_WORLD_FIRST_INSTANCE_KEY = 1000
_GROUP_KEY_SPACE = 1 << 14
# Instance keys are int32; subgroups count from 2**29, away from the world's keys
# (from 1000) and the barriers' (from 2**28).
_GROUP_INSTANCE_BASE = 1 << 29

Group = collections.namedtuple("Group", ["name", "key", "ranks"])

_lock = threading.Lock()
_groups = {}          # name -> Group (subgroups only)
_counters = {WORLD_GROUP: itertools.count(_WORLD_FIRST_INSTANCE_KEY)}


def _check_name(group):
    if not isinstance(group, str) or not group:
        raise TypeError("group must be a non-empty str (a group name); got %r" % (group,))
    if len(group) > 127:
        raise ValueError("group name must be at most 127 characters (as in HCCL); got %d"
                         % len(group))


def _group_key(name, ranks):
    text = "%s|%s" % (name, ",".join(str(r) for r in ranks))
    return 2 + zlib.crc32(text.encode("utf-8")) % (_GROUP_KEY_SPACE - 2)


def create_group(group, rank_num, rank_ids):
    """Registers ``group`` made of the world ranks ``rank_ids`` (``rank_num`` of them).

    Called on the member ranks, as in HCCL.  Raises ValueError for the world
    group's name, a name already in use, duplicate or out-of-range ranks, or a
    ``rank_num`` that does not match ``rank_ids``; and if this rank is not a member.
    """
    _check_name(group)
    if group == WORLD_GROUP:
        raise ValueError("create_group: %r is the world group, which always exists" % group)
    size = runtime.rank_info().rank_size
    ranks = list(rank_ids) if isinstance(rank_ids, (list, tuple)) else None
    if ranks is None or not all(isinstance(r, int) and not isinstance(r, bool) for r in ranks):
        raise TypeError("create_group rank_ids must be a list of int world ranks; got %r"
                        % (rank_ids,))
    if rank_num != len(ranks):
        raise ValueError("create_group rank_num=%r but rank_ids has %d ranks %r"
                         % (rank_num, len(ranks), ranks))
    if len(set(ranks)) != len(ranks) or not all(0 <= r < size for r in ranks):
        raise ValueError("create_group rank_ids must be distinct ranks in [0, %d) "
                         "(RANK_SIZE=%d); got %r" % (size, size, ranks))
    me = runtime.rank_info().rank_id
    if me not in ranks:
        raise ValueError("create_group(%r): this rank (%d) is not in rank_ids %r; only "
                         "member ranks create a group" % (group, me, ranks))
    ranks = tuple(sorted(ranks))
    with _lock:
        if group in _groups:
            raise ValueError("create_group: group %r already exists with ranks %r; "
                             "destroy_group it first" % (group, _groups[group].ranks))
        key = _group_key(group, ranks)
        clash = [g.name for g in _groups.values() if g.key == key]
        if clash:
            raise ValueError("create_group: group %r hashes to the key of group %r; "
                             "choose another name" % (group, clash[0]))
        _groups[group] = Group(group, key, ranks)
        _counters[group] = itertools.count(_GROUP_INSTANCE_BASE)


def destroy_group(group):
    """Forgets ``group``; its name can be created again (with other ranks too)."""
    _check_name(group)
    if group == WORLD_GROUP:
        raise ValueError("destroy_group: the world group %r cannot be destroyed" % group)
    with _lock:
        if _groups.pop(group, None) is None:
            raise ValueError("destroy_group: no group named %r (existing: %s)"
                             % (group, sorted(_groups) or "none"))
        _counters.pop(group, None)


def get_group(group=WORLD_GROUP):
    """The Group for a name (None means the world group); ValueError if unknown."""
    if group is None or group == WORLD_GROUP:
        return Group(WORLD_GROUP, WORLD_GROUP_KEY,
                     tuple(range(runtime.rank_info().rank_size)))
    _check_name(group)
    with _lock:
        found = _groups.get(group)
    if found is None:
        raise ValueError("group %r does not exist on this rank; create_group it first "
                         "(existing: %s)" % (group, sorted(_groups) or "only %s" % WORLD_GROUP))
    return found


def group_rank(group=WORLD_GROUP):
    """This rank's index within ``group``; ValueError if it is not a member."""
    found = get_group(group)
    me = runtime.rank_info().rank_id
    if me not in found.ranks:
        raise ValueError("this rank (%d) is not in group %r (ranks %r)"
                         % (me, found.name, found.ranks))
    return found.ranks.index(me)


def next_instance_key(group=WORLD_GROUP):
    """A fresh instance key for a collective of ``group``, equal on all its members."""
    name = get_group(group).name
    with _lock:
        return next(_counters[name])


def world_rank_from_group_rank(group, group_rank_id):
    """The world rank of member ``group_rank_id`` of ``group``."""
    found = get_group(group)
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(found.ranks):
        raise ValueError("group_rank_id must be an int in [0, %d) for group %r; got %r"
                         % (len(found.ranks), found.name, group_rank_id))
    return found.ranks[group_rank_id]


def group_rank_from_world_rank(world_rank_id, group):
    """The index in ``group`` of world rank ``world_rank_id``."""
    found = get_group(group)
    if world_rank_id not in found.ranks:
        raise ValueError("world rank %r is not in group %r (ranks %r)"
                         % (world_rank_id, found.name, found.ranks))
    return found.ranks.index(world_rank_id)
