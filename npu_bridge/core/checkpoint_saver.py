"""NPUEstimator's checkpoint saver: the stock hook, writing the graph only when it changed.

The stock ``CheckpointSaverHook`` writes ``graph.pbtxt`` (a text dump: seconds
for a model of a few hundred variables) and a graph and a meta-graph record to
the events file every time a session starts, i.e. on every ``train()`` call.
Scripts that alternate ``train()`` and ``evaluate()`` rebuild the same graph
each time, so each call costs those seconds again and grows the events file by
two more copies of the graph. This hook skips the three writes when the graph
is the same as the one this process last wrote to that model_dir. It makes one
GraphDef per session start for all its uses (the digest, graph.pbtxt, both
records, the ``.meta`` files), where the stock hook makes three, made on a
thread from the moment the graph is finalised, while the session is created
and its variables initialised, restored or broadcast (``finalized_graph``); the first
session in a process writes one graph record, not two (the cached writer the
stock hook takes writes the graph, unfinished, when it is created).

"The same" means the same nodes, ops, attributes, shapes and dtypes. It ignores
the numeric suffixes TensorFlow gives function names (``..._body_23`` vs
``..._body_6303`` for the same loop body traced again), the values held in
constants (an unseeded initializer draws a new seed constant at every build)
and the instance keys of collective ops (a per-process counter with ranks):
what TensorBoard draws is the same. Checkpoints and their ``.meta`` files, which
hold the exact graph of each checkpoint, are written as by the stock hook,
except one: the stock hook saves a checkpoint as each session starts; when the
session restored model_dir's latest checkpoint, at the step it starts at, and
the graph is unchanged (the usual second train() call), that checkpoint is on
disk already and is not written again (the listeners are still called). The
``.meta`` bytes are serialised once per session, on a thread as it starts, and
written by each save (``meta_graph_file``). The save op's run is prepared on
another thread meanwhile (``prepared_save``), so that the session's first save
(the one it starts with, or on an unchanged model's second call the final one,
which every rank waits for) costs what the ones after it do.

When a checkpoint is due is decided from the global step after each run, read
after the device loop, so that every rank decides the same at the same run:
with weight-update sharding, saving exchanges the optimizer's slots between
ranks (``distributed.optimizers.sharded_slots``), ranks that write no checkpoint take part
through ``CheckpointParticipantHook``, and with ``save_checkpoints_secs`` the
ranks agree on each save (a small all-reduce with each run: clocks differ).
"""

import hashlib
import itertools
import os
import re
import threading

import tensorflow as tf
from tensorflow.core.framework import tensor_pb2

from npu_bridge.tf_private.graph import create_meta_graph_def
from npu_bridge.tf_private.summary import (
    add_graph_def, add_meta_graph_bytes, cached_writer_without_graph)

from npu_bridge.core.finalized_graph import AheadOfSession
from npu_bridge.core.graph_text_file import write_graph_text
from npu_bridge.core.meta_graph_file import PreparedMetaGraph, collection_sizes
from npu_bridge.core.prepared_save import PreparedSave
from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.distributed.optimizers import sharded_slots
from npu_bridge.tf_private.estimator import get_or_create_global_step_read

_UNIQUE_SUFFIX = re.compile(r"_\d+$")
_last_written = {}  # realpath(model_dir) -> _WrittenGraph last written there
_lock = threading.Lock()


class _Canonicalizer(object):
    """Rewrites every function name (and names built from one) to its suffix-free form."""

    def __init__(self, function_names):
        self._names = {name: _UNIQUE_SUFFIX.sub("", name) for name in function_names}
        ordered = sorted(self._names, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(n) for n in ordered)) if ordered else None

    def text(self, value):
        if self._pattern is None:
            return value
        return self._pattern.sub(lambda match: self._names[match.group(0)], value)

    def names_in(self, nodes):
        """Whether any name or input of ``nodes`` holds a function name (one search of all)."""
        if self._pattern is None:
            return False
        return self._pattern.search("\n".join(
            itertools.chain.from_iterable(itertools.chain((n.name,), n.input)
                                          for n in nodes))) is not None

    def node(self, node, names_too=True):
        """``names_too=False``: the node's name and inputs hold no function name (checked)."""
        if names_too:
            node.name = self.text(node.name)
            inputs = [self.text(i) for i in node.input]
            del node.input[:]
            node.input.extend(inputs)
        node.op = self.text(node.op)
        if node.op == "Const" and "value" in node.attr:
            tensor = node.attr["value"].tensor
            tensor.CopyFrom(tensor_pb2.TensorProto(dtype=tensor.dtype,
                                                   tensor_shape=tensor.tensor_shape))
        if "instance_key" in node.attr:  # collectives: a process-wide counter
            node.attr["instance_key"].i = 0
        if node.op == "SummaryWriter" and "shared_name" in node.attr:  # a per-graph suffix
            node.attr["shared_name"].s = b""
        for value in node.attr.values():
            if value.HasField("func"):
                value.func.name = self.text(value.func.name)
            elif value.HasField("list"):
                for func in value.list.func:
                    func.name = self.text(func.name)

    def function(self, function):
        signature = function.signature
        signature.name = self.text(signature.name)
        for arg in list(signature.input_arg) + list(signature.output_arg):
            arg.name = self.text(arg.name)
        for node in function.node_def:
            self.node(node)
        for table in (function.ret, function.control_ret):
            renamed = {self.text(k): self.text(v) for k, v in table.items()}
            table.clear()
            table.update(renamed)


def graph_digest(graph_def):
    """A digest of ``graph_def`` that does not depend on function-name suffixes."""
    canonical = tf.compat.v1.GraphDef()
    canonical.CopyFrom(graph_def)
    library = canonical.library
    rename = _Canonicalizer(f.signature.name for f in library.function)
    names_too = rename.names_in(canonical.node)  # rarely: renaming every input is most of it
    for node in canonical.node:
        rename.node(node, names_too)
    for function in library.function:
        rename.function(function)
    for gradient in library.gradient:
        gradient.function_name = rename.text(gradient.function_name)
        gradient.gradient_func = rename.text(gradient.gradient_func)
    digest = hashlib.sha256()
    # Function order in the library follows creation order: hash them sorted.
    for function in sorted(f.SerializeToString(deterministic=True) for f in library.function):
        digest.update(function)
    for gradient in sorted(g.SerializeToString(deterministic=True) for g in library.gradient):
        digest.update(gradient)
    canonical.ClearField("library")
    digest.update(canonical.SerializeToString(deterministic=True))
    return digest.hexdigest()


def _meta_graph_record(graph_def, saver):
    """The serialised meta-graph record the stock hook writes to the events file (the
    default graph's collections)."""
    return create_meta_graph_def(
        graph_def=graph_def, saver_def=saver.saver_def if saver else None).SerializeToString()


class _WrittenGraph(object):
    """The graph last written to a model_dir; its digest is computed when compared, or
    ahead on a thread (``compute_ahead``) so that the next session start finds it."""

    def __init__(self, graph_def):
        self._graph_def, self._digest, self._thread = graph_def, None, None

    def compute_ahead(self):
        self._thread = threading.Thread(target=lambda: self.digest,
                                        name="npu_bridge-graph-digest", daemon=True)
        self._thread.start()

    @property
    def digest(self):
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if self._digest is None:
            self._digest, self._graph_def = graph_digest(self._graph_def), None
        return self._digest


class CheckpointSaverHook(tf.compat.v1.train.CheckpointSaverHook):
    """``tf.compat.v1.train.CheckpointSaverHook`` that writes an unchanged graph once.

    ``graph.pbtxt`` is written by a background thread while training starts
    (formatting text is slow, and nothing reads the file during training),
    with large tensor contents escaped at C speed (``graph_text``);
    ``end()`` waits for it, so the file is complete when train() returns.
    """

    _pbtxt_writer = None
    _meta_graph = None  # the session's PreparedMetaGraph, or None: saves serialise it
    _prepared_save = None  # the session's PreparedSave, or None: saves use Session.run
    _ahead = None  # AheadOfSession making the GraphDef as the graph is finalised

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, step_after_run=None,
                 **kwargs):
        super(CheckpointSaverHook, self).__init__(
            checkpoint_dir, save_secs=save_secs, save_steps=save_steps, **kwargs)
        self._every_secs = save_secs
        self._loop_step_after = step_after_run  # the device loop's step read after it

    def begin(self):
        # the stock hook takes the cached writer, which if new writes the unfinished graph
        cached_writer_without_graph(self._checkpoint_dir)
        super(CheckpointSaverHook, self).begin()
        self._begin_schedule()
        self._ahead = AheadOfSession(tf.compat.v1.get_default_graph(), self._graph_def_of)

    def _graph_def_of(self, graph):
        """The one GraphDef of every use at session start; it serialised (for the graph
        record and graph.pbtxt's child: serialising holds the GIL throughout); the
        ``.meta`` bytes' PreparedMetaGraph, or None; and the graph as written here (its
        digest made already if this process wrote a graph to model_dir before)."""
        graph_def = graph.as_graph_def(add_shapes=True)
        with graph.as_default():  # the saver may come from the graph's collection
            saver = self._get_saver()
        meta_graph = (PreparedMetaGraph(saver, graph, graph_def)
                      if self._save_graph_def and PreparedMetaGraph.usable(saver, graph)
                      else None)
        serialized = graph_def.SerializeToString()
        written = _WrittenGraph(graph_def)
        last = _last_written.get(os.path.realpath(self._checkpoint_dir))
        record = None  # the meta-graph record, if the graph will be written
        if last is None or last.digest != written.digest:
            with graph.as_default():
                record = (collection_sizes(graph), _meta_graph_record(graph_def, saver))
        return graph_def, serialized, meta_graph, written, record

    def _record_made_ahead_or_now(self, graph, graph_def, record):
        """The events file's meta-graph record: made ahead unless a collection has grown
        or shrunk since."""
        if record is not None and record[0] == collection_sizes(graph):
            return record[1]
        return _meta_graph_record(graph_def, self._get_saver())

    def _begin_schedule(self):
        """The step read after the loop, and the ranks' vote when saves are timed."""
        graph = tf.compat.v1.get_default_graph()
        self._step_after_run = (self._loop_step_after if self._loop_step_after is not None
                                else self._global_step_tensor)
        self._agreed = None
        plan = sharded_slots.plan_for(graph)
        if self._every_secs and plan is not None and plan.active and runtime.is_distributed():
            self._vote = tf.compat.v1.placeholder_with_default(0, [], name="npu_save_vote")
            self._agreed = collectives.allreduce(self._vote, "max")

    def before_run(self, run_context):
        if self._agreed is None:
            return tf.compat.v1.train.SessionRunArgs(self._step_after_run)
        due = self._timer.should_trigger_for_step(self._timer.last_triggered_step() + 1)
        return tf.compat.v1.train.SessionRunArgs(
            [self._step_after_run, self._agreed], feed_dict={self._vote: int(due)})

    def after_run(self, run_context, run_values):
        if self._agreed is None:
            return super(CheckpointSaverHook, self).after_run(run_context, run_values)
        if run_values.results[1]:  # some rank's clock says a checkpoint is due
            global_step = run_context.session.run(self._global_step_tensor)
            self._timer.update_last_triggered_step(global_step)
            if self._save(run_context.session, global_step):
                run_context.request_stop()

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        graph = tf.compat.v1.get_default_graph()
        saver = self._get_saver()
        prepared = self._save_graph_def and PreparedMetaGraph.usable(saver, graph)
        # made while this thread works in Python below (not before the run above: on a
        # rank's server, making it holds the session while it prunes the graph)
        self._prepared_save = PreparedSave(session, saver.saver_def) if prepared else None
        ahead, self._ahead = self._ahead, None  # a session made again makes its own
        graph_def, serialized, meta_graph, written, record = (
            ahead.result() if ahead is not None else self._graph_def_of(graph))
        self._meta_graph = meta_graph if prepared else None
        graph_changed = self._graph_changed(written)
        if graph_changed:
            if self._save_graph_def:
                self._pbtxt_writer = threading.Thread(
                    target=write_graph_text, name="npu_bridge_graph_pbtxt",
                    args=(graph_def, self._checkpoint_dir, "graph.pbtxt", serialized))
                self._pbtxt_writer.start()
            add_graph_def(self._summary_writer, graph, serialized)
            add_meta_graph_bytes(self._summary_writer,
                                 self._record_made_ahead_or_now(graph, graph_def, record))
        if self._already_on_disk(session.graph, global_step, graph_changed):
            self._announce(session, global_step)
        else:
            self._save(session, global_step)  # the state at "global_step", as the stock hook
        self._timer.update_last_triggered_step(global_step)
        if graph_changed:  # the next session's comparison needs its digest: made meanwhile
            self._written.compute_ahead()

    def _save(self, session, step):
        """The stock hook's save, with the ``.meta`` file prepared as the session started."""
        if self._meta_graph is None:
            return super(CheckpointSaverHook, self)._save(session, step)
        for listener in self._listeners:
            listener.before_save(session, step)
        tf.compat.v1.logging.info("Saving checkpoints for %d into %s.", step, self._save_path)
        if self._prepared_save is not None:
            session = self._prepared_save.session_for(session)
        path = self._get_saver().save(session, self._save_path, global_step=step,
                                      write_meta_graph=False)
        self._meta_graph.write(path)
        self._summary_writer.add_session_log(tf.compat.v1.SessionLog(
            status=tf.compat.v1.SessionLog.CHECKPOINT, checkpoint_path=self._save_path), step)
        stop = [listener for listener in self._listeners if listener.after_save(session, step)]
        for listener in stop:
            tf.compat.v1.logging.info("Training stops: checkpoint listener %r asked for it "
                                      "after saving step %d.", listener, step)
        return bool(stop)

    def _already_on_disk(self, graph, global_step, graph_changed):
        """Whether the checkpoint the stock hook would write now is model_dir's latest already.

        A second train() call on an unchanged model restores the latest
        checkpoint, at the step the session starts at; writing it again (values
        and ``.meta``) would write the same state under the same name. Not
        skipped: a graph that changed (the ``.meta`` must describe it), a session
        that did not start from that checkpoint, and sharded optimizer slots
        (their save is an exchange every rank takes part in).
        """
        if graph_changed or not self._checkpoint_dir:
            return False
        plan = sharded_slots.plan_for(graph)
        if plan is not None and plan.active:
            return False
        latest = tf.train.latest_checkpoint(self._checkpoint_dir)
        return (latest is not None
                and os.path.normpath(latest) == os.path.normpath(
                    "%s-%d" % (self._save_path, global_step))
                and tf.io.gfile.exists(latest + ".index"))

    def _announce(self, session, global_step):
        """The listeners' calls of a save, for the checkpoint at ``global_step`` already there."""
        for listener in self._listeners:
            listener.before_save(session, global_step)
        for listener in self._listeners:
            listener.after_save(session, global_step)

    def end(self, session):
        try:
            super(CheckpointSaverHook, self).end(session)
        finally:
            if self._prepared_save is not None:
                self._prepared_save.wait()
                self._prepared_save = None
            if self._pbtxt_writer is not None:
                self._pbtxt_writer.join()
                self._pbtxt_writer = None

    def _graph_changed(self, written):
        """Whether the graph ``written`` (a _WrittenGraph) differs from what this process
        last wrote here (or that is gone)."""
        key = os.path.realpath(self._checkpoint_dir)
        pbtxt = os.path.join(self._checkpoint_dir, "graph.pbtxt")
        with _lock:
            last = _last_written.get(key)
            _last_written[key] = current = self._written = written
            if last is None or (self._save_graph_def and not tf.io.gfile.exists(pbtxt)):
                return True
            return last.digest != current.digest


class CheckpointParticipantHook(CheckpointSaverHook):
    """On a rank that writes no checkpoint: takes part in each save the writer makes.

    Saving exchanges sharded optimizer slots between ranks
    (``distributed.optimizers.sharded_slots``); this hook runs that exchange at the same
    steps as the writer's saver (the same schedule), and writes nothing.
    """

    def __init__(self, exchange_op, save_secs=None, save_steps=None, step_after_run=None):
        super(CheckpointParticipantHook, self).__init__(
            "", save_secs=save_secs, save_steps=save_steps, step_after_run=step_after_run)
        self._exchange_op = exchange_op

    def begin(self):
        self._global_step_tensor = get_or_create_global_step_read()
        self._begin_schedule()

    def after_create_session(self, session, coord):
        global_step = session.run(self._global_step_tensor)
        self._save(session, global_step)
        self._timer.update_last_triggered_step(global_step)

    def end(self, session):
        last_step = session.run(self._global_step_tensor)
        if last_step != self._timer.last_triggered_step():
            self._save(session, last_step)

    def _save(self, session, step):
        session.run(self._exchange_op)
        return False


def saver_hook_for(config, model_dir, scaffold, writes=True, step_after_run=None):
    """The checkpoint saver an Estimator with ``config`` would add, or None if it adds none.

    ``writes=False`` (a rank whose model_dir another rank writes): the hook that
    takes part in the writer's saves when they need every rank, else None.
    ``step_after_run``: the device loop's global step read after the loop (None
    without a loop), from which the hook decides when a checkpoint is due.
    """
    if not (config.save_checkpoints_secs or config.save_checkpoints_steps):
        return None
    if not writes:
        plan = sharded_slots.plan_for(tf.compat.v1.get_default_graph())
        if plan is None or not plan.active:
            return None
        return CheckpointParticipantHook(plan.exchange_op(),
                                         save_secs=config.save_checkpoints_secs,
                                         save_steps=config.save_checkpoints_steps,
                                         step_after_run=step_after_run)
    return CheckpointSaverHook(
        model_dir, save_secs=config.save_checkpoints_secs,
        save_steps=config.save_checkpoints_steps, scaffold=scaffold,
        step_after_run=step_after_run,
        save_graph_def=config.checkpoint_save_graph_def)
