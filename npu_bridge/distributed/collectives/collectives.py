"""Collective ops across ranks, built on ``tensorflow.python.ops.collective_ops``.

All ranks build the same graphs in the same order, so a counter per group
(``groups.next_instance_key``) hands every collective the same instance key on
every member rank without talking to anyone.  ``group`` is the world group
``hccl_world_group`` or a subset of ranks made with ``groups.create_group``.  Keys are never reused, even across graphs: the collective runtime
caches instance parameters (shape, type) per key for the life of the server.

Inside a ``while_v2`` loop (the iterations_per_loop device loop) the same op
runs many times in one Session.run; TensorFlow lowers the loop to frames and
keys each execution by (instance key, frame, iteration), so one key per op is
enough there too (tests/test_distributed_loop.py checks it).

Fusion: ``fused_allreduce`` flattens and concatenates same-dtype tensors so a
step costs one collective per dtype instead of one per variable.

Collectives carry ``devices.rank_communication_hint()``: nccl on GPUs, ring on CPUs.

Everything here returns its input unchanged when single-process.
"""

import itertools
import threading

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import devices, peer_give_up, rank_timeout, runtime
from npu_bridge.distributed.collectives import groups
from npu_bridge.tf_private.distribute import collective_ops

WORLD_GROUP = groups.WORLD_GROUP
_WORLD_GROUP_KEY = groups.WORLD_GROUP_KEY

_FIRST_BARRIER_KEY = 1 << 28  # barriers count on their own: they are built off-graph

_key_lock = threading.Lock()
_barrier_keys = itertools.count(_FIRST_BARRIER_KEY)

# reduction name -> (merge_op, final_op) of CollectiveReduce
_REDUCTIONS = {
    "sum": ("Add", "Id"),
    "mean": ("Add", "Div"),
    "max": ("Max", "Id"),
    "min": ("Min", "Id"),
    "prod": ("Mul", "Id"),
}

# dtypes every collective op (reduce, broadcast, gather) accepts as they are;
# bfloat16 is not among them for broadcast and gather (TF 2.15)
_NATIVE = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64)


def _peer_timeout():
    """Completion timeout for the collectives that run once per session (broadcast,
    barrier). Not for per-step ones: TensorFlow starts a thread per timed execution
    that sleeps the whole timeout; ``rank_watchdog`` bounds those instead."""
    return rank_timeout.rank_timeout_seconds()


def next_instance_key(group=WORLD_GROUP):
    """A fresh instance key, identical on every member given identical graph building."""
    return groups.next_instance_key(group)


class _Members(object):
    """What a collective needs to know about its group on this rank."""

    def __init__(self, group):
        found = groups.get_group(group)
        self.name, self.key, self.size = found.name, found.key, len(found.ranks)
        self.rank = groups.group_rank(group)  # ValueError when not a member

    def instance_key(self):
        return groups.next_instance_key(self.name)


def _rank_size():
    return runtime.rank_info().rank_size


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError("reduction must be one of %s, got %r"
                         % (sorted(_REDUCTIONS), reduction))
    return _REDUCTIONS[reduction]


def _native_dtype(dtype):
    """(dtype a collective carries ``dtype`` as, dtype to cast back to or None)."""
    if dtype in _NATIVE:
        return dtype, None
    if dtype == tf.bfloat16:  # exact in float32; a sum is rounded back once
        return tf.float32, dtype
    if dtype == tf.bool or dtype.is_integer:
        return tf.int64, dtype
    raise TypeError("collectives support numeric and bool tensors, got %s" % dtype.name)


def _to_native(tensor):
    """(tensor castable for collectives, dtype to cast back to or None)."""
    try:
        native, back = _native_dtype(tensor.dtype)
    except TypeError as error:
        raise TypeError("%s for %s" % (error, tensor.name)) from None
    return (tf.cast(tensor, native), back) if back is not None else (tensor, None)


def allreduce(tensor, reduction="sum", group=WORLD_GROUP):
    """Reduces one tensor over all ranks with reduction sum/mean/max/min/prod."""
    merge_op, final_op = _check_reduction(reduction)
    members = _Members(group)
    tensor = tf.convert_to_tensor(tensor)
    if members.size == 1:
        return tf.identity(tensor)
    value, back = _to_native(tensor)
    out = collective_ops.all_reduce(
        value, group_size=members.size, group_key=members.key,
        instance_key=members.instance_key(), merge_op=merge_op, final_op=final_op,
        communication_hint=devices.rank_communication_hint())
    return tf.cast(out, back) if back is not None else out


def _reshaped(tensor, shape):
    """``tf.reshape(tensor, shape)`` whose shape constant waits for nothing.

    Every reshape of the collectives goes through here. Gradients are usually
    reduced inside the batch-norm idiom's ``with
    tf.control_dependencies(update_ops):``, and every constant made there gets
    an edge from each update op: for bench_startup's model (250 gradients, 102
    updates) about 30,000 edges, a third of its graph's, which the session walks
    each time it prepares a run. The reshape still waits as before: through
    ``tensor``, made in the same block, or by getting the edges itself.
    """
    with tf.control_dependencies(None):
        shape = tf.constant(shape, tf.int32)
    return tf.reshape(tensor, shape)


def fused_allreduce(tensors, reduction="sum", group=WORLD_GROUP):
    """All-reduces a list of tensors with one collective per dtype.

    Same-dtype tensors are flattened and concatenated, reduced once, then
    split and reshaped back.  Needs fully defined shapes for the split; any
    tensor without one is reduced on its own.
    """
    _check_reduction(reduction)
    tensors = [tf.convert_to_tensor(t) for t in tensors]
    if _Members(group).size == 1:
        return [tf.identity(t) for t in tensors]
    out = [None] * len(tensors)
    buckets = {}
    for i, t in enumerate(tensors):
        if t.shape.is_fully_defined():
            buckets.setdefault(t.dtype, []).append(i)
        else:
            out[i] = allreduce(t, reduction, group)
    for dtype in sorted(buckets, key=lambda d: d.name):
        idx = buckets[dtype]
        if len(idx) == 1:
            out[idx[0]] = allreduce(tensors[idx[0]], reduction, group)
            continue
        flat = tf.concat([_reshaped(tensors[i], [-1]) for i in idx], axis=0)
        reduced = allreduce(flat, reduction, group)
        sizes = [tensors[i].shape.num_elements() for i in idx]
        for i, part in zip(idx, tf.split(reduced, sizes)):
            out[i] = _reshaped(part, tensors[i].shape.as_list())
    return out


def allreduce_flag_all(flag):
    """True on every rank iff ``flag`` (a bool scalar) is True on all ranks.

    For loss scaling: every rank must take the same skip/apply decision, so
    the "all gradients finite" flag is reduced with min over 0/1 values.
    """
    flag = tf.convert_to_tensor(flag)
    if flag.dtype != tf.bool:
        raise TypeError("allreduce_flag_all expects a bool tensor, got %s" % flag.dtype.name)
    if _rank_size() == 1:
        return tf.identity(flag)
    as_int = tf.cast(flag, tf.int32)
    return tf.cast(allreduce(as_int, "min"), tf.bool)


def allgather(tensor, group=WORLD_GROUP):
    """Concatenates every member's tensor along dimension 0, in group rank order."""
    members = _Members(group)
    tensor = tf.convert_to_tensor(tensor)
    if members.size == 1:
        return tf.identity(tensor)
    value, back = _to_native(tensor)
    if value.shape.rank == 0:
        value = _reshaped(value, [1])
    out = collective_ops.all_gather(value, group_size=members.size, group_key=members.key,
                                    instance_key=members.instance_key(),
                                    communication_hint=devices.rank_communication_hint())
    return tf.cast(out, back) if back is not None else out


def reduce_scatter(tensor, reduction="sum", group=WORLD_GROUP):
    """Reduces over the group, then keeps this rank's 1/group-size slice of dimension 0."""
    tensor = tf.convert_to_tensor(tensor)
    members = _Members(group)
    size = members.size
    dim0 = tensor.shape[0] if tensor.shape.rank else None
    if dim0 is not None and dim0 % size:
        raise ValueError("reduce_scatter needs dimension 0 (%d) divisible by rank_size (%d)"
                         % (dim0, size))
    reduced = allreduce(tensor, reduction, group)
    if size == 1:
        return reduced
    chunk = tf.shape(reduced)[0] // size
    return reduced[members.rank * chunk:][:chunk]


def _by_dtype(dtypes):
    """Indices of ``dtypes`` grouped per dtype, groups in an order every rank agrees on."""
    buckets = {}
    for i, dtype in enumerate(dtypes):
        buckets.setdefault(dtype, []).append(i)
    return [buckets[dtype] for dtype in sorted(buckets, key=lambda d: d.name)]


def _broadcast_members(root_rank, group):
    members = _Members(group)
    if not isinstance(root_rank, int) or not 0 <= root_rank < members.size:
        raise ValueError("root_rank must be an int in [0, %d), got %r"
                         % (members.size, root_rank))
    return members


def _send(tensors, members):
    """Root's side of a broadcast: one send per dtype of ``tensors``, flattened and joined.

    Returns [(the send's output, the indices of ``tensors`` it carries)]; the
    output is its input (in the tensors' dtype), and reading it orders a reader
    after the send.
    """
    sent = []
    for idx in _by_dtype([t.dtype for t in tensors]):
        flat = tf.concat([_reshaped(tensors[i], [-1]) for i in idx], axis=0)
        value, back = _to_native(flat)
        key = members.instance_key()
        out = collective_ops.broadcast_send(value, value.shape, value.dtype, members.size,
                                            members.key, key, timeout=_peer_timeout(),
                                            communication_hint=devices.rank_communication_hint())
        sent.append((tf.cast(out, back) if back is not None else out, idx))
    return sent


def _receive(specs, root_rank, members):
    """The other ranks' side of ``_send``: root's tensors, from their shapes and dtypes."""
    out = [None] * len(specs)
    for idx in _by_dtype([spec.dtype for spec in specs]):
        sizes = [specs[i].shape.num_elements() for i in idx]
        native, back = _native_dtype(specs[idx[0]].dtype)
        key = members.instance_key()
        got = collective_ops.broadcast_recv([sum(sizes)], native, members.size, members.key,
                                            key, timeout=_peer_timeout(),
                                            communication_hint=devices.rank_communication_hint())
        got = tf.cast(got, back) if back is not None else got
        for i, part in zip(idx, tf.split(got, sizes)):
            out[i] = _reshaped(part, specs[i].shape.as_list())
    return out


def _check_fully_defined(shapes_of):
    for shape, name in shapes_of:
        if not shape.is_fully_defined():
            raise ValueError("broadcast needs a fully defined shape, got %s for %s"
                             % (shape, name))


def broadcast(tensors, root_rank=0, group=WORLD_GROUP):
    """Every rank gets root_rank's values; fused into one collective per dtype.

    ``tensors`` is a tensor or a list of tensors (the original takes a list);
    the result has the same form.  ``root_rank`` is a rank within ``group``.
    """
    members = _broadcast_members(root_rank, group)
    single = not isinstance(tensors, (list, tuple))
    tensors = [tf.convert_to_tensor(t) for t in ([tensors] if single else tensors)]
    if members.size == 1:
        out = [tf.identity(t) for t in tensors]
        return out[0] if single else out
    _check_fully_defined((t.shape, t.name) for t in tensors)
    if members.rank == root_rank:
        out = [None] * len(tensors)
        for sent, idx in _send(tensors, members):
            sizes = [tensors[i].shape.num_elements() for i in idx]
            for i, part in zip(idx, tf.split(sent, sizes)):
                out[i] = _reshaped(part, tensors[i].shape.as_list())
    else:
        out = _receive([tf.TensorSpec(t.shape, t.dtype) for t in tensors], root_rank, members)
    return out[0] if single else out


def broadcast_to_variables(variables, root_rank=0, group=WORLD_GROUP):
    """One op giving ``variables`` root_rank's values on every member of ``group``.

    Built for the side each rank plays: root_rank reads and sends its values
    (its variables keep them: nothing assigned there), the others receive and
    assign (nothing read there). That is under half the ops per variable of
    ``broadcast`` followed by assigns on every rank (bench_startup's 250
    variables: 0.54 s to build instead of 1.36-1.55 s with two ranks on 2
    cores), built once per session. Shapes must be fully defined.
    """
    members = _broadcast_members(root_rank, group)
    if members.size == 1 or not variables:
        return tf.no_op(name="broadcast_to_variables")
    _check_fully_defined((v.shape, v.name) for v in variables)
    if members.rank == root_rank:
        sent = _send([tf.convert_to_tensor(v) for v in variables], members)
        return tf.group(*[out for out, _ in sent], name="broadcast_to_variables")
    values = _receive([tf.TensorSpec(v.shape, v.dtype.base_dtype) for v in variables],
                      root_rank, members)
    return tf.group(*[_assign(v, value) for v, value in zip(variables, values)],
                    name="broadcast_to_variables")


def _assign(variable, value):
    """The assign op alone: a resource variable's reads nothing back; a ref variable's
    (TF1 scripts that turn resource variables off) is its only form."""
    if variable.dtype != variable.dtype.base_dtype:
        return tf.compat.v1.assign(variable, value)
    return variable.assign(value, read_value=False)


# How long past the rank timeout an off-graph collective may wait before the
# rank gives up on its own (``peer_give_up``): TensorFlow's deadlines normally
# end it at the rank timeout, with a DeadlineExceededError naming the op.
_GIVE_UP_AFTER_DEADLINE_S = 30.0


def _run_off_graph(build, doing):
    """Runs the world collective ``build(instance_key)`` in a graph and session of its own.

    Bounded twice: the collective's completion timeout and the session's
    operation timeout (the rank timeout), and, for a run that hangs past both
    (a stopped peer), ``peer_give_up`` ends the rank naming ``doing``.
    """
    with _key_lock:
        key = next(_barrier_keys)
    timeout = _peer_timeout()
    config = runtime.session_config_for_rank()
    config.operation_timeout_in_ms = int((timeout + 5.0) * 1000)
    with tf.Graph().as_default():
        result = build(key)
        with peer_give_up.exit_after(timeout + _GIVE_UP_AFTER_DEADLINE_S, doing), \
                tf.compat.v1.Session(runtime.ensure_server(), config=config) as sess:
            return sess.run(result)


def barrier(doing="a barrier between ranks"):
    """Blocks until every rank has called barrier() (same number of times).

    Runs a one-element all-reduce in a graph and session of its own, so it can
    be used between Estimator calls (e.g. after rank 0's final checkpoint, before
    others evaluate it) and at the end of a script.  No-op when single-process.
    ``doing`` names the wait if the rank gives up on its peers (``peer_give_up``).
    """
    info = runtime.rank_info()
    if info.rank_size == 1:
        return
    _run_off_graph(lambda key: collective_ops.all_reduce(
        tf.ones([1]), group_size=info.rank_size, group_key=_WORLD_GROUP_KEY,
        instance_key=key, timeout=_peer_timeout()), doing)


def gather_from_ranks(values, doing="a gather of values from every rank"):
    """Every rank's ``values`` (ints, the same count on every rank), in rank order.

    A numpy array of shape [rank_size, len(values)], gathered off-graph like
    ``barrier`` (which it also is): for decisions ranks take together between
    Estimator calls.  Single process: just this rank's row.  ``doing`` as for
    ``barrier``.
    """
    info = runtime.rank_info()
    row = np.asarray([list(values)], dtype=np.int64)
    if info.rank_size == 1:
        return row
    return _run_off_graph(lambda key: collective_ops.all_gather(
        tf.constant(row), group_size=info.rank_size, group_key=_WORLD_GROUP_KEY,
        instance_key=key, timeout=_peer_timeout()), doing)
