"""Sharded optimizer slots in checkpoints, under the names unsharded training gives them.

With weight-update sharding each rank keeps the optimizer's slots (Adam's m and
v, momentum's accumulator) only for the variables it owns
(``weight_sharding``). For a stopped and resumed run to end as one that was not,
the checkpoint must hold every slot; for it to resume on another number of
ranks (a preempted job rarely gets the same nodes back) it must not depend on
who owned what. So a checkpoint holds the slots exactly as unsharded training
writes them: ``<variable>/Adam``, ``<variable>/Adam_1``, ``beta1_power`` ...

How, in NPUEstimator (plain Session scripts keep the slots rank-local, as
before):

* **Names.** Before the sharded update is built, the wrapped optimizer creates
  the slots of *every* variable (``Optimizer._create_slots``, the hook its
  subclasses override, called as ``apply_gradients`` calls it), so each slot
  gets the name unsharded training gives it. The slots of variables other ranks
  own stay placeholders: they are in no collection, never initialised, never
  read, and so take no memory.
* **Saving.** Every rank builds one exchange per owner (a fused broadcast of
  that owner's slots; rank 0 also sends the optimizer's other variables, such
  as Adam's beta powers, which every updating rank holds equal). The
  checkpoint's saver saves the exchanged values, so a rank that writes a
  checkpoint writes every slot; each exchange runs only while a checkpoint is
  saved, so the full set exists only then. Ranks that write no checkpoint take
  part in the same exchanges at the same steps
  (``core.checkpoint_saver.CheckpointParticipantHook``).
* **Restoring.** The session restores the model's variables; the slots are
  local variables, which the session initialises after its restore, so
  ``SlotRestoreHook`` then restores each rank's own slots (and the optimizer's
  other variables) from the same checkpoint, by name, before anything else
  runs or saves. Any owner assignment reads the same checkpoint.

The plan travels from the optimizer (called inside ``model_fn``) to the
estimator through the graph: ``plan_for(graph)`` (a weak map, gone with the
graph).
"""

import collections
import weakref

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.tf_private.checkpoint import SaveableObject, SaveSpec

# One slot or optimizer variable: the variable (a placeholder on non-owners),
# its checkpoint name, the rank whose copy is real, and whether this rank keeps it.
Entry = collections.namedtuple("Entry", ["variable", "name", "owner", "kept_here"])

_plans = weakref.WeakKeyDictionary()  # graph -> ShardedSlots
_warned = set()


def _warn_once(key, message, *args):
    if key not in _warned:
        _warned.add(key)
        tf.compat.v1.logging.warning("npu_bridge: " + message, *args)


class _ExchangedValue(SaveableObject):
    """A slot as the checkpoint sees it: saved from the exchange, restored by the owner."""

    def __init__(self, value, name):
        spec = SaveSpec(value, "", name)
        super(_ExchangedValue, self).__init__(value, [spec], name)

    def restore(self, restored_tensors, restored_shapes):
        # The session initialises local variables after it restores: restoring here
        # would be undone. SlotRestoreHook restores the owners' copies afterwards.
        return tf.no_op()


class ShardedSlots(object):
    """The sharded slots of one graph: what to save, exchange and restore."""

    def __init__(self):
        self.entries = []
        self._exchanged = []  # one value per entry, in entry order
        self.active = False   # True once the estimator's saver saves them

    def saveables(self):
        return [_ExchangedValue(value, entry.name)
                for entry, value in zip(self.entries, self._exchanged)]

    def exchange_op(self):
        """What a rank that writes no checkpoint runs when the writer saves."""
        return tf.group(*self._exchanged, name="npu_sharded_slots_exchange")

    def kept_here(self):
        """{checkpoint name: variable} of the slots this rank restores."""
        return {e.name: e.variable for e in self.entries if e.kept_here}

    def add(self, entries):
        """Adds ``entries`` and builds their exchange (every rank, in the same order)."""
        rank = runtime.rank_info().rank_id
        by_owner = collections.OrderedDict()
        for entry in entries:
            by_owner.setdefault(entry.owner, []).append(entry)
        exchanged = {}
        for owner, owned in sorted(by_owner.items()):
            values = [e.variable.read_value() if owner == rank
                      else tf.zeros(e.variable.shape, e.variable.dtype.base_dtype)
                      for e in owned]
            for entry, value in zip(owned, collectives.broadcast(values, root_rank=owner)):
                exchanged[entry.name] = value
        self.entries.extend(entries)
        self._exchanged.extend(exchanged[e.name] for e in entries)


def plan_for(graph):
    """The graph's ShardedSlots, or None when no sharded update was built in it."""
    return _plans.get(graph)


def _slot_owners(optimizer, variables, owners, created):
    """{id(created variable): owner rank}: a slot's owner is its variable's owner."""
    of = {}
    for var, owner in zip(variables, owners):
        for slot_name in optimizer.get_slot_names():
            slot = optimizer.get_slot(var, slot_name)
            if slot is not None:
                of[id(slot)] = owner
    return {id(v): of.get(id(v)) for v in created}


def create_all_slots(optimizer, variables, owners, graph):
    """Creates the slots of every variable, named as without sharding; keeps this rank's.

    Returns the entries (one per created variable) for ``record``. The slots of
    variables other ranks own are taken out of every collection; the caller
    makes the rest rank-local (``weight_sharding``). An optimizer whose slots
    are not made by ``_create_slots`` (a wrapper) gives no entries.
    """
    rank = runtime.rank_info().rank_id
    before = {id(v) for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)}
    with tf.init_scope():
        # Optimizer._create_slots(var_list): what apply_gradients calls first, in
        # the outer graph, with the same variables in the same order.
        optimizer._create_slots(list(variables))  # pylint: disable=protected-access
    created = [v for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
               if id(v) not in before]
    owner_of = _slot_owners(optimizer, variables, owners, created)
    entries = []
    for var in created:
        owner = owner_of[id(var)]
        if owner is None:  # not a slot (Adam's beta powers): every updating rank has it
            entries.append(Entry(var, var.op.name, 0, True))
        else:
            entries.append(Entry(var, var.op.name, owner, owner == rank))
    placeholders = {id(e.variable) for e in entries if not e.kept_here}
    global_vars = graph.get_collection_ref(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    global_vars[:] = [v for v in global_vars if id(v) not in placeholders]
    return entries


def record(graph, optimizer, entries, extra):
    """Registers ``entries`` for checkpoints; ``extra``: variables the update made besides."""
    if extra:
        _warn_once(("extra", type(optimizer).__name__),
                   "%s creates variables inside apply_gradients (%s); with weight-update "
                   "sharding they stay rank-local and are not in checkpoints.",
                   type(optimizer).__name__, ", ".join(v.op.name for v in extra))
    if not entries:
        return
    if not all(e.variable.shape.is_fully_defined() for e in entries):
        _warn_once(("shape", type(optimizer).__name__),
                   "%s has slots without a fully defined shape; with weight-update sharding "
                   "its slots are not in checkpoints.", type(optimizer).__name__)
        return
    plan = _plans.get(graph)
    if plan is None:
        plan = _plans[graph] = ShardedSlots()
    with tf.init_scope():  # saved between runs, not inside the device loop
        plan.add(entries)


def checkpoint_saver(graph, keep_checkpoint_max, keep_checkpoint_every_n_hours):
    """The Saver an Estimator adds by default, also saving the graph's sharded slots.

    None when the graph has none. Marks the plan active (its exchanges then run
    with every save, so every rank must take part: ``SlotRestoreHook`` and
    ``CheckpointParticipantHook``).
    """
    plan = plan_for(graph)
    if plan is None:
        return None
    plan.active = True
    return tf.compat.v1.train.Saver(
        var_list=(tf.compat.v1.global_variables() + plan.saveables()),
        sharded=True, max_to_keep=keep_checkpoint_max,
        keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
        save_relative_paths=True)


def warn_not_saved(graph):
    """The scaffold brought its own saver: the sharded slots stay out of checkpoints."""
    if plan_for(graph) is not None:
        _warn_once("scaffold", "model_fn's Scaffold has its own saver: with weight-update "
                   "sharding the optimizer's slots are not in its checkpoints and start "
                   "from zero after a restore.")


class SlotRestoreHook(tf.compat.v1.train.SessionRunHook):
    """Restores this rank's slots from the checkpoint the session started from.

    Must run first after the session is created: before the broadcast and
    before the saver writes the checkpoint of the starting step.
    """

    def __init__(self, plan, model_dir):
        self._plan = plan
        self._model_dir = model_dir
        self._saver = None

    def begin(self):
        kept = self._plan.kept_here()
        self._saver = tf.compat.v1.train.Saver(kept, sharded=False) if kept else None

    def after_create_session(self, session, coord):
        path = tf.train.latest_checkpoint(self._model_dir)
        if path is not None and self._saver is not None:
            self._saver.restore(session, path)
