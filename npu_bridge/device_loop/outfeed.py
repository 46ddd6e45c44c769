"""The outfeed: how each step's host_call values leave the device loop and reach fn.

The device side enqueues one record per step into a bounded FIFO queue that
lives in the graph. A host thread runs an in-graph *host loop*: every
``Session.run`` of it takes the records that are there (at least one, at most
HOST_CHUNK) and runs fn's ops on each record in order. After a run that took
fewer than HOST_BLOCK records the thread sleeps HOST_PAUSE_SECS, so that on a
fast device records leave in blocks rather than waking the host once per step
(a host that caught up woke once per record, which cost more CPU than it
saved). The queue bound keeps memory fixed whatever iterations_per_loop is;
the device only waits when the host is a full queue behind.

When records are on disk: a flusher thread flushes fn's writers about every
FLUSH_EVERY_SECS while records arrive. Two counters (records the device sent,
records fn's ops ran on) let ``RecordsBeforeCheckpoint`` hold each checkpoint
until the host has caught up and flushed, so a checkpoint at step S never
covers a record that is not on disk. A training session writes a
SessionLog.START at its starting step + 1 to fn's writers, so TensorBoard
drops what a crashed run wrote after the checkpoint the new run resumed from.

Shutdown: at the end the queue is closed; the host loop drains what is left
and stops on the closed, empty queue. If fn's ops fail, the host thread keeps
the error and closes the queue with pending enqueues cancelled, so a device
loop blocked on a full queue ends at once and the error reaches the caller.
"""
import collections
import sys
import threading
import time
import uuid

import numpy as np
import tensorflow as tf
from tensorflow.core.util import event_pb2

from npu_bridge.device_loop.host_call import HostCall
from npu_bridge.device_loop import unfed_placeholders
from npu_bridge.device_loop.read_order import order_reads_after
from npu_bridge.tf_private import estimator as estimator_lib
from npu_bridge.tf_private import summary as summary_ops
from npu_bridge.tf_private.graph import is_stateful, while_loop

# Records kept in the queue are bounded by bytes as well as by count, so a
# host_call carrying image batches cannot eat the machine's memory.
QUEUE_BYTES_BUDGET = 64 * 1024 * 1024
MAX_QUEUE_RECORDS = 1024
MIN_QUEUE_RECORDS = 2
HOST_CHUNK = 1024  # at most this many records per host Session.run
HOST_BLOCK = 64  # a smaller take (or under half the queue) makes the host pause
HOST_PAUSE_SECS = 0.004
# fn's writers are flushed this often while records arrive, so what is on disk
# trails the device by about this much (and at every checkpoint, not at all).
FLUSH_EVERY_SECS = 1.0

OutfeedBounds = collections.namedtuple("OutfeedBounds", [
    "queue_bytes", "max_records", "min_records", "host_chunk", "host_block",
    "host_pause_secs", "flush_every_secs"])
# The bounds above, as a loop plan carries them (``plan.LoopPlan.outfeed``).
DEFAULT_BOUNDS = OutfeedBounds(QUEUE_BYTES_BUDGET, MAX_QUEUE_RECORDS, MIN_QUEUE_RECORDS,
                               HOST_CHUNK, HOST_BLOCK, HOST_PAUSE_SECS, FLUSH_EVERY_SECS)


def _record_bytes(tensors):
    """Bytes of one record; an unknown dimension is counted as 1024."""
    total = 0
    for t in tensors:
        dims = t.shape.as_list() if t.shape.rank is not None else [None]
        elements = np.prod([1024 if d is None else d for d in dims], dtype=np.int64)
        total += int(elements) * max(t.dtype.size, 1)
    return max(total, 1)


def _record_counter(name):
    return tf.compat.v1.Variable(
        tf.constant(0, tf.int64), trainable=False, use_resource=True, name=name,
        collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])


def _writer_init_ops():
    return list(summary_ops.writer_initializers())


def _ops_to_run(returned, created):
    """Ops of one host step: what fn returned plus every stateful op it created.

    The stateful ones are included so that a fn returning None (or forgetting a
    summary) still has its writes run, as it would in eager code.
    """
    ops = []
    for item in tf.nest.flatten(returned):
        if item is None:
            continue
        if isinstance(item, tf.Operation):
            ops.append(item)
        elif hasattr(item, "op"):
            ops.append(item.op)
        else:
            raise TypeError(
                "host_call function must return ops, tensors, a list of them, or None; "
                "got an element of type %s." % type(item).__name__)
    ops.extend(op for op in created if is_stateful(op) and op not in ops
               and op.type not in _NOT_PER_STEP)
    return [anchor(op) for op in ops]


# Ops fn creates without returning that are not worth running every step:
# ``writer.as_default()`` adds a flush on exit, and the writer is flushed at the end
# (and whenever its queue fills) anyway.
_NOT_PER_STEP = ("FlushSummaryWriter",)


def anchor(op):
    """An op whose completion implies ``op`` ran, safe as a control input in a loop body.

    A control edge straight onto a functional ``If`` that captures a resource
    was seen not to run its branch inside a while_v2 body; a data edge from
    one of its outputs does.
    """
    if op.outputs and op.type in ("If", "StatelessIf", "Case", "StatelessCase"):
        return tf.identity(op.outputs[0]).op
    return op


class Outfeed(object):
    """Queue, host loop and shutdown ops for one host_call, built in the current graph.

    ``bounds`` (an ``OutfeedBounds``, from the loop plan) size the queue, the
    host's blocks and runs, and the flush period.
    """

    def __init__(self, host_call, bounds=DEFAULT_BOUNDS, name="npu_outfeed"):
        self.host_call = host_call if isinstance(host_call, HostCall) else HostCall(host_call)
        self.bounds = bounds
        self._name = name
        self._queue = None

    def enqueue(self, after, step_values=()):
        """Build the op sending this step's values, ordered after ``after`` (ops).

        ``step_values`` (the loss) are values the step computed even if ``after``
        does not depend on them: variable reads behind them are not delayed.
        """
        unfed_placeholders.check(self.host_call, list(after) + list(step_values))
        with tf.control_dependencies(after):
            values = self.host_call.device_tensors()
        values = order_reads_after(values, after, step_values)
        if self._queue is None:
            self._create_queue(values)
        enqueue = self._queue.enqueue(values, name=self._name + "_enqueue")
        with tf.control_dependencies([enqueue]):
            return self.sent.assign_add(1, read_value=False)

    def _create_queue(self, values):
        shapes = [v.shape for v in values]
        fixed = all(s.is_fully_defined() for s in shapes)
        bounds = self.bounds
        capacity = int(min(bounds.max_records, max(
            bounds.min_records, bounds.queue_bytes // _record_bytes(values))))
        self.capacity = capacity
        self._static_shapes = shapes
        with tf.init_scope(), tf.name_scope(self._name):
            self._queue = tf.queue.FIFOQueue(
                capacity, [v.dtype for v in values],
                shapes=shapes if fixed else None, name="queue")
            # Records enqueued by the device and records fn's ops have run on: the
            # host has caught up when they are equal (a checkpoint waits for that).
            self.sent = _record_counter("records_sent")
            self.done = _record_counter("records_done")

    def build_host_side(self):
        """Build, in the outer graph, the host run and the upkeep op (``upkeep``).

        One ``Session.run`` of ``host_run`` takes the records that are queued
        (at least one, waiting for it on an empty queue; at most
        ``host_chunk``), dequeuing them one by one in an inner loop that runs
        fn's ops on each in order, and returns how many it took. The loop
        carries only its count: the records are not loop variables (each one
        costs executor nodes per record) and need no slicing.
        """
        if self._queue is None:
            raise RuntimeError("Outfeed.enqueue must be built before the host side.")
        graph = tf.compat.v1.get_default_graph()
        writers_before = _writer_init_ops()
        # A take smaller than this makes the host thread pause (HostCallHook._drain).
        self.block = max(1, min(self.bounds.host_block, self.capacity // 2))

        def one_record(received):
            """fn's ops for one record, plus the op that produced the record."""
            for tensor, shape in zip(received, self._static_shapes):
                tensor.set_shape(shape)
            body_graph = tf.compat.v1.get_default_graph()
            known = set(body_graph.get_operations())
            returned = self.host_call.call(list(received))
            created = [op for op in body_graph.get_operations() if op not in known]
            # The record's own op is a dependency too: a fn that builds no op
            # must still consume its record, or the host loop would spin.
            return _ops_to_run(returned, created) + [received[0].op]

        def each(left):
            # Only this thread dequeues: after the first, no dequeue of a take waits.
            received = self._queue.dequeue(name="dequeue")
            if not isinstance(received, (list, tuple)):
                received = [received]
            with tf.control_dependencies(one_record(received)):
                return left - 1

        with tf.name_scope(self._name + "_host"):
            take = tf.clip_by_value(self._queue.size(), 1,
                                    max(1, min(self.bounds.host_chunk, self.capacity)))
            ran = while_loop(lambda left: left > 0, each, [take], parallel_iterations=1)[0]
            with tf.control_dependencies([ran]):
                counted = self.done.assign_add(tf.cast(take, tf.int64), read_value=False)
            with tf.control_dependencies([counted]):
                self.host_run = tf.identity(take, name="records_taken")
        new_writers = [op for op in _writer_init_ops() if op not in writers_before]
        suffix = uuid.uuid4().hex[:12]
        for op in new_writers:  # a later train() on a rank's server must not find them
            summary_ops.give_writer_its_own_resource(op, suffix)
        assert graph is tf.compat.v1.get_default_graph()
        self._build_upkeep([op.inputs[0] for op in new_writers],
                           tf.group(*new_writers) if new_writers else None)
        self.abort = self._queue.close(cancel_pending_enqueues=True)
        return self

    def _build_upkeep(self, writers, writer_init):
        """One op for every host-side job but the host run: see ``upkeep``.

        Each new combination of fetches and feeds costs the session a pass over
        the whole graph the first time it runs (0.3-0.7 s each on a rank's
        server, while the device loop starts beside it). Starting the writers,
        flushing them, reading the counters and closing the queue were four
        such combinations; as one op, fed flags choosing the jobs, the session
        prepares them once, when the writers start.
        """
        name = self._name + "_upkeep"
        self._start_event = tf.compat.v1.placeholder_with_default("", [], name + "_start_event")
        self._flushing = tf.compat.v1.placeholder_with_default(False, [], name + "_flushing")
        self._closing = tf.compat.v1.placeholder_with_default(False, [], name + "_closing")
        self.has_writers = bool(writers)

        def each_writer(make):
            def jobs():
                with tf.control_dependencies([make(writer) for writer in writers]):
                    return tf.no_op()
            return jobs

        done = []
        if writers:
            # Running a writer's init again finds the writer made by the first run.
            with tf.control_dependencies([writer_init]):
                imported = tf.cond(
                    tf.not_equal(self._start_event, ""),
                    each_writer(lambda w: summary_ops.import_event(w, self._start_event)),
                    tf.no_op, name=name + "_import")
            with tf.control_dependencies([imported]):
                done.append(tf.cond(self._flushing,
                                    each_writer(lambda w: summary_ops.flush_writer(writer=w)),
                                    tf.no_op, name=name + "_flush"))

        def close_queue():
            with tf.control_dependencies([self._queue.close(cancel_pending_enqueues=False)]):
                return tf.no_op()

        done.append(tf.cond(self._closing, close_queue, tf.no_op, name=name + "_close"))
        with tf.control_dependencies(done):
            self._upkeep = (tf.identity(self.sent.read_value()),
                            tf.identity(self.done.read_value()))

    def upkeep(self, session, start_event=b"", flush=False, close=False):
        """Run the host side's other jobs in one ``Session.run``; return (sent, done).

        In order: initialise fn's writers (again: a no-op after the first time),
        import ``start_event`` (a serialized ``Event``) into each if given, flush
        them if ``flush``; close the queue if ``close`` (the host run then drains
        it and ends). The counts are read after those jobs. Every call feeds the
        same three values, so every call is the same combination for the session.
        """
        sent, done = session.run(self._upkeep, {self._start_event: start_event,
                                                self._flushing: flush,
                                                self._closing: close})
        return int(sent), int(done)


class HostCallHook(tf.compat.v1.train.SessionRunHook):
    """Runs the outfeed's host thread (and its flusher) for the life of a session.

    ``error`` holds an exception raised by fn's ops; the estimator re-raises it
    in place of the cancellation it causes on the device side.

    With ``marks_restart`` (training), a ``SessionLog.START`` event at the
    restored global step + 1 is written to fn's writers when the session
    starts: TensorBoard then drops records of later steps that a crashed run
    left behind, and shows the resumed run's records in their place.
    """

    def __init__(self, outfeed):
        self._outfeed = outfeed
        self._flush_every = outfeed.bounds.flush_every_secs
        self._thread = None
        self._flusher = None
        self._stop_flusher = threading.Event()
        self._session = None
        self._threads_due = False
        self.marks_restart = False
        self.error = None

    def begin(self):
        # the read the checkpoint saver fetches too: one combination of fetches less
        self._global_step = estimator_lib.get_or_create_global_step_read()

    def after_create_session(self, session, coord):
        self._stop_thread(close=False)
        self._session = session
        # Starts fn's writers, and makes the session prepare the upkeep run here,
        # before the device loop's first run, rather than beside it or at the end.
        if self.marks_restart and self._global_step is not None and self._outfeed.has_writers:
            self._start_writers_marking_restart(session)
        else:
            self._outfeed.upkeep(session)
        # The threads start with the session's first run: their first runs of a
        # combination of fetches make the session prune and optimise the graph, and
        # on a rank's server that holds the session, so the other hooks' runs here
        # would wait for them (0.4-0.6 s on rank 0 in a traced two-rank start).
        self._threads_due = True

    def before_run(self, run_context):
        if self._threads_due:
            self._threads_due = False
            self._start_threads(self._session)

    def _start_threads(self, session):
        self._thread = threading.Thread(target=self._drain, args=(session,),
                                        name="npu_bridge-host-call", daemon=True)
        self._thread.start()
        if self._outfeed.has_writers:
            self._stop_flusher.clear()
            self._flusher = threading.Thread(target=self._flush_periodically, args=(session,),
                                             name="npu_bridge-host-call-flush", daemon=True)
            self._flusher.start()

    def _start_writers_marking_restart(self, session):
        step = int(session.run(self._global_step))
        event = event_pb2.Event(wall_time=time.time(), step=step + 1,
                                session_log=event_pb2.SessionLog(
                                    status=event_pb2.SessionLog.START))
        self._outfeed.upkeep(session, start_event=event.SerializeToString(), flush=True)

    def _drain(self, session):
        pause = self._outfeed.bounds.host_pause_secs
        try:
            while True:
                taken = session.run(self._outfeed.host_run)
                if taken < self._outfeed.block and pause:
                    # The device is ahead of nothing: let records gather, so the
                    # next run takes a block without a wake-up per record.
                    time.sleep(pause)
        except (tf.errors.OutOfRangeError, tf.errors.CancelledError):
            return  # queue closed and drained, or the session went away
        except BaseException as e:  # pylint: disable=broad-except
            self.error = e
            self._error_info = sys.exc_info()
            try:
                session.run(self._outfeed.abort)
            except Exception:  # pylint: disable=broad-except
                pass  # the session may be closing already; the device ends anyway

    def _flush_periodically(self, session):
        """Flush fn's writers about every second while records keep arriving."""
        flushed = 0
        while not self._stop_flusher.wait(self._flush_every):
            try:
                done = self._outfeed.upkeep(session)[1]  # as wait_until_written
                if done != flushed:
                    self._outfeed.upkeep(session, flush=True)
                    flushed = done
            except Exception:  # pylint: disable=broad-except
                return  # the session is closing; end() flushes

    def wait_until_written(self, session, poll_secs=0.001):
        """Block until fn's ops ran on every record sent so far, then flush the writers.

        Called before a checkpoint is saved, between device runs: the
        checkpoint then never holds a step whose record is not on disk.
        """
        if self._session is not session:
            return  # this session has not started the host side: nothing was sent
        while True:
            self.raise_if_failed()
            sent, done = self._outfeed.upkeep(session)
            if done >= sent:
                break
            if self._thread is None or not self._thread.is_alive():
                self.raise_if_failed()
                raise RuntimeError(
                    "host_call: %d record(s) were sent but the host thread is not running."
                    % (sent - done))
            time.sleep(poll_secs)
            poll_secs = min(poll_secs * 2, 0.05)
        if self._outfeed.has_writers:
            self._outfeed.upkeep(session, flush=True)

    def after_run(self, run_context, run_values):
        self.raise_if_failed()

    def raise_if_failed(self):
        if self.error is not None:
            raise self.error

    def _stop_thread(self, close=True, timeout=None):
        if self._flusher is not None:
            self._stop_flusher.set()
            self._flusher.join(timeout)
            self._flusher = None
        if self._thread is None:
            return
        if close:
            try:
                self._outfeed.upkeep(self._session, close=True)
            except Exception:  # pylint: disable=broad-except
                pass
        self._thread.join(timeout)
        self._thread = None

    def end(self, session):
        self._stop_thread(close=True)
        self.raise_if_failed()
        if self._outfeed.has_writers:
            self._outfeed.upkeep(session, flush=True)

    def shutdown(self, timeout=10.0):
        """Last resort after an abnormal exit: end the host thread without waiting long."""
        if self._flusher is not None:
            self._stop_flusher.set()
            self._flusher.join(timeout)
            self._flusher = None
        if self._thread is not None and self._session is not None:
            try:
                self._session.run(self._outfeed.abort)
            except Exception:  # pylint: disable=broad-except
                pass
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None


class RecordsBeforeCheckpoint(tf.compat.v1.train.CheckpointSaverListener):
    """Makes every checkpoint a consistent cut of the host_call records.

    Before checkpoint S is written, the host has run fn's ops on every record
    of steps <= S and flushed the writers, so a crash after it loses no record
    of a step the checkpoint holds.
    """

    def __init__(self, host_hooks):
        self._host_hooks = list(host_hooks)

    def before_save(self, session, global_step_value):
        for hook in self._host_hooks:
            hook.wait_until_written(session)
