"""The input iterator started by the session's local init, not by a run of its own.

The stock Estimator starts an input_fn's Dataset from a hook
(``_DatasetInitializerHook.after_create_session``): one ``Session.run`` of the
iterator's initialiser as every session starts. The first run of a set of
fetches in a session prunes and optimises the whole graph for it, so each
distinct run at session start costs time in proportion to the graph, whatever
little it runs: a read of the global step took 0.10-0.13 s in one process and
0.18-0.44 s on a rank's server for ``bench_startup.py``'s model, and on a
rank's server those preparations are serialised (they hold the master
session). The session already makes one run for its local init op, after its
init or restore; the iterator is started in that run instead, so a session
start makes one run fewer.

``InputStartingScaffold`` is the program's Scaffold with its local init op,
resolved when the scaffold is finalised exactly as ``Scaffold.finalize`` would
resolve it (the one given, the graph's LOCAL_INIT_OP collection, or the
default made then), grouped with a second initialiser of the same iterator.
Within one run nothing orders the ops the pipeline is built from after the
initialisers, so this is done only for a pipeline that reads no state: every
op it is built from (data and control inputs, up from the Dataset) is a
dataset op, a stateless op with no resource or reference input (constants,
shapes, casts), or one of tf.data's own resources (its caches and seed
generators). A pipeline built from a lookup table's values, a variable's
value or anything else an initialiser sets keeps the hook, which runs after
the session is prepared. The local init op runs once per session, on every
path that prepares one (restore or init, chief or not, a session re-created
after an error), where the hook ran once per session too.

With ranks this also starts the input before the variable broadcast (a hook
of the session's start, ``distributed.sessions.broadcast_hook``), as the stock
Estimator orders its input hooks before the hooks given to train(): each rank
starts its input while the other ranks may still be on their way to the
broadcast, rather than after it while they wait.
"""

import tensorflow as tf

from npu_bridge.device_loop.read_order import ancestors
from npu_bridge.tf_private import estimator as estimator_lib
from npu_bridge.tf_private.graph import is_reference


class InputStartingScaffold(tf.compat.v1.train.Scaffold):
    """``scaffold`` (copied) whose local init op also starts ``iterator_initializers``.

    A local init op the scaffold was given is joined at once: the stock
    Estimator's evaluate() reads it to make a Scaffold of its own (to add its
    eval step's initialiser), and that one must start the input too. Otherwise
    the op is joined when the scaffold is finalised, once the default exists.
    """

    def __init__(self, scaffold, iterator_initializers):
        super(InputStartingScaffold, self).__init__(copy_from_scaffold=scaffold)
        self._iterator_initializers = list(iterator_initializers)
        self._input_joined = False
        if self._local_init_op is not None:
            self._join_input()

    def _join_input(self):
        self._input_joined = True
        self._local_init_op = _then_start(self._local_init_op, self._iterator_initializers)

    def finalize(self):
        if not self._input_joined and not tf.compat.v1.get_default_graph().finalized:
            # the local init op Scaffold.finalize would pick
            self._local_init_op = tf.compat.v1.train.Scaffold.get_or_default(
                "local_init_op", tf.compat.v1.GraphKeys.LOCAL_INIT_OP,
                tf.compat.v1.train.Scaffold.default_local_init_op)
            self._join_input()
        return super(InputStartingScaffold, self).finalize()


def _then_start(local_init_op, initializers):
    """One op: ``local_init_op`` and a copy of each MakeIterator in ``initializers``."""
    starts = []
    with tf.name_scope("npu_input_start"), tf.control_dependencies([local_init_op]):
        for op in initializers:
            with tf.device(op.device):
                starts.append(tf.raw_ops.MakeIterator(dataset=op.inputs[0],
                                                      iterator=op.inputs[1]))
    return tf.group(local_init_op, *starts, name="npu_local_init_and_input_start")


# tf.data's own resources, made by the pipeline's ops themselves (no initialiser).
_DATASET_RESOURCE_OPS = frozenset([
    "DummyMemoryCache", "AnonymousMemoryCache", "DummySeedGenerator",
    "AnonymousSeedGenerator", "AnonymousRandomSeedGenerator"])


def _reads_no_state(op):
    """True if ``op`` computes its outputs from its inputs alone (as far as the
    session's initialisers go); dataset ops run their functions later, not here."""
    if op.type in _DATASET_RESOURCE_OPS:
        return True
    if op.outputs and all(t.dtype == tf.variant for t in op.outputs):
        return True
    if op.op_def.is_stateful:
        return False
    return all(t.dtype != tf.resource and not is_reference(t) for t in op.inputs)


def _makes_iterator(hook):
    """The MakeIterator op ``hook`` runs as its session starts, if its pipeline
    reads no state, else None."""
    iterator = estimator_lib.dataset_iterator(hook)
    initializer = getattr(iterator, "initializer", None) if iterator is not None else None
    if not isinstance(initializer, tf.Operation) or initializer.type != "MakeIterator":
        return None
    if not all(_reads_no_state(op) for op in ancestors([initializer.inputs[0].op])):
        return None
    return initializer


def started_by_scaffold(hooks, scaffold):
    """(hooks, scaffold): the input initialiser hooks among ``hooks`` taken out and
    their iterators started by the returned scaffold's local init op instead.
    Unchanged when there is none or no scaffold."""
    initializers = [_makes_iterator(h) for h in hooks]
    if scaffold is None or not any(op is not None for op in initializers):
        return hooks, scaffold
    kept = [h for h, op in zip(hooks, initializers) if op is None]
    return kept, InputStartingScaffold(scaffold, [op for op in initializers if op is not None])
