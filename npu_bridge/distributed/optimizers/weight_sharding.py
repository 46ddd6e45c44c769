"""Weight-update sharding: each rank updates only the variables it owns.

Without sharding every rank keeps the optimizer's slots (Adam's m and v,
momentum's accumulator) for every variable and applies the full update: the
same work and memory on every rank.  With
``NPUDistributedOptimizer(..., is_weight_update_sharding=True)``:

1. gradients are averaged over ranks as usual (one fused all-reduce per dtype;
   our reduce-scatter is an all-reduce plus a slice, so it would not move fewer
   bytes);
2. every variable gets one owner rank (``assign_owners``: largest first, to the
   least-loaded rank, so shards are balanced by element count; the same on
   every rank because every rank builds the same graph);
3. each rank applies the wrapped optimizer to its own variables only, so the
   optimizer's slots exist once across the job (on the owner);
4. each owner broadcasts its updated values (one fused broadcast per owner and
   dtype) and the other ranks assign them; the global step is incremented
   after that, on every rank.

Ranks therefore stay bitwise equal, and equal to the unsharded update (same
arithmetic on the same averaged gradients, done once instead of N times).

The slots of a sharded optimizer are rank-local state: they are moved to
``LOCAL_VARIABLES`` so the start-of-training broadcast (which would pair rank
0's slots with another rank's) leaves them out.  They are initialised by
``local_variables_initializer`` (MonitoredTrainingSession, NPUEstimator and
``Scaffold`` do that; a hand-written Session loop must run it too).  Every
slot is created first under the name unsharded training gives it, so that
NPUEstimator's checkpoints hold all of them as unsharded training writes them
(``sharded_slots``); plain Session scripts keep them out of checkpoints.
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.distributed.optimizers import sharded_slots


def assign_owners(variables, rank_size):
    """List of owner ranks, one per variable, balancing element counts."""
    if rank_size < 1:
        raise ValueError("rank_size must be >= 1, got %r" % (rank_size,))
    sizes = [v.shape.num_elements() if v.shape.is_fully_defined() else 1 for v in variables]
    load = [0] * rank_size
    owners = [0] * len(variables)
    for i in sorted(range(len(variables)), key=lambda i: (-sizes[i], i)):
        owner = min(range(rank_size), key=lambda r: (load[r], r))
        owners[i] = owner
        load[owner] += sizes[i]
    return owners


def _outer_graph():
    """The graph variables live in, also from inside a while_v2 / tf.function body."""
    with tf.init_scope():
        return tf.compat.v1.get_default_graph()


def _make_rank_local(graph, before):
    """Moves global variables created since ``before`` (ids) to LOCAL_VARIABLES."""
    global_vars = graph.get_collection_ref(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    new = [v for v in global_vars if id(v) not in before]
    global_vars[:] = [v for v in global_vars if id(v) in before]
    for var in new:
        graph.add_to_collection(tf.compat.v1.GraphKeys.LOCAL_VARIABLES, var)
    return new


def _read(var):
    return var.read_value() if hasattr(var, "read_value") else tf.identity(var)


def sharded_apply_gradients(optimizer, grads_and_vars, global_step=None, name=None):
    """The sharded update described in the module doc; one op."""
    given = list(grads_and_vars)
    grads_and_vars = [(g, v) for g, v in given if g is not None]
    if not grads_and_vars:
        raise ValueError("No gradients provided for any variable: %s"
                         % ([v.name for _, v in given],))
    info = runtime.rank_info()
    variables = [v for _, v in grads_and_vars]
    owners = assign_owners(variables, info.rank_size)
    mine = [gv for gv, owner in zip(grads_and_vars, owners) if owner == info.rank_id]
    graph = _outer_graph()
    before = {id(v) for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)}
    slots = sharded_slots.create_all_slots(optimizer, variables, owners, graph)
    if mine:
        update = optimizer.apply_gradients(mine, name=name)
    else:
        update = tf.no_op(name="no_owned_variables")
    made = _make_rank_local(graph, before)  # this rank's slots
    known = {id(e.variable) for e in slots}
    sharded_slots.record(graph, optimizer, slots, [v for v in made if id(v) not in known])
    assigns = []
    with tf.control_dependencies([update]):
        for owner in range(info.rank_size):
            owned = [v for v, o in zip(variables, owners) if o == owner]
            if not owned:
                continue
            values = collectives.broadcast([_read(v) for v in owned], root_rank=owner)
            if owner == info.rank_id:
                assigns.extend(tf.identity(value) for value in values)  # the send ran
            else:
                assigns.extend(tf.compat.v1.assign(v, value).op
                               for v, value in zip(owned, values))
    with tf.control_dependencies([update] + assigns):
        if global_step is None:
            return tf.no_op(name=name or "sharded_update")
        with tf.compat.v1.colocate_with(global_step):
            return tf.compat.v1.assign_add(global_step, 1, name=name or "sharded_update").op
