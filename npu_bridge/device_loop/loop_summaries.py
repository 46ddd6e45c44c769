"""Summaries written inside model_fn, carried out of the device loop.

A model_fn that calls ``tf.compat.v1.summary.scalar/histogram/image/...``
adds summary tensors to the SUMMARIES collection. Under a loop those tensors
live in the ``while_v2`` body, where nothing outside can fetch them (the
stock Estimator's ``merge_all`` fails with "must be from the same graph").
The plain Estimator writes them with a ``SummarySaverHook`` at the first
step of a session and then every ``save_summary_steps`` steps; records carry
the global step after that step.

Here the body keeps the inputs of the summary ops (the values the step
computed, the tags) and, on the steps the plain Estimator would write, sends
them with that global step through an outfeed of their own, the same
transport host_call uses. The serialising summary ops themselves are rebuilt
on the host from the received inputs, so a histogram or a PNG image costs
only on those steps; the send is a ``tf.cond`` on the step, so other steps pay
one comparison. The host writes the merged ``Summary`` with the step into
model_dir's events (a writer of its own, so a second events file there).
The loss summary the plain Estimator adds when model_fn made none named
``loss`` is made in the body the same way.

Which steps: records at ``origin + k * every`` where ``origin`` is the global
step after the session's first step, exactly the plain hook's schedule for
contiguous steps (``SecondOrStepTimer``). ``SummaryOriginHook`` feeds origin.
"""

import tensorflow as tf

from npu_bridge.device_loop.outfeed import Outfeed
from npu_bridge.tf_private import estimator as estimator_lib
from npu_bridge.tf_private.graph import replace_input

_SUMMARIES = tf.compat.v1.GraphKeys.SUMMARIES


def _attr(op, name):
    return op.get_attr(name)


# How to make each summary op again on the host from its received inputs.
_REBUILD = {
    "ScalarSummary": lambda op, x: tf.raw_ops.ScalarSummary(tags=x[0], values=x[1]),
    "HistogramSummary": lambda op, x: tf.raw_ops.HistogramSummary(tag=x[0], values=x[1]),
    "ImageSummary": lambda op, x: tf.raw_ops.ImageSummary(
        tag=x[0], tensor=x[1], max_images=_attr(op, "max_images"),
        bad_color=_attr(op, "bad_color")),
    "AudioSummaryV2": lambda op, x: tf.raw_ops.AudioSummaryV2(
        tag=x[0], tensor=x[1], sample_rate=x[2], max_outputs=_attr(op, "max_outputs")),
    "TensorSummaryV2": lambda op, x: tf.raw_ops.TensorSummaryV2(
        tag=x[0], tensor=x[1], serialized_summary_metadata=x[2]),
    "MergeSummary": lambda op, x: tf.raw_ops.MergeSummary(inputs=list(x)),
}


def body_summaries(body_graph):
    """Summary tensors model_fn added to SUMMARIES inside the loop body."""
    return [t for t in tf.compat.v1.get_collection(_SUMMARIES)
            if getattr(t, "graph", None) is body_graph]


def drop_body_summaries(graph):
    """Remove from ``graph``'s SUMMARIES the tensors of a loop body.

    The collection is shared with the body; the plain Estimator's merge_all
    (Scaffold.finalize) would otherwise fail on them.
    """
    summaries = graph.get_collection_ref(_SUMMARIES)
    summaries[:] = [t for t in summaries if getattr(t, "graph", graph) is graph]


# The inputs of each summary op that carry the summarised values (and, for
# ScalarSummary, the tags that must have the values' shape).
_VALUE_INPUTS = {"ScalarSummary": (0, 1), "HistogramSummary": (1,), "ImageSummary": (1,),
                 "AudioSummaryV2": (1,), "TensorSummaryV2": (1,)}


def silence(summaries):
    """Make the body's own summary ops summarise nothing.

    A ``while_v2`` body keeps every op it holds, needed or not, so model_fn's
    summary ops would still run every step (a histogram, a PNG encoding) after
    their values have been taken elsewhere. Their value inputs are rewired to
    empty tensors of the same rank, so they cost almost nothing; the values
    themselves are sent from the step as before (``LoopSummaries``).
    """
    seen = set()
    stack = [t.op for t in summaries]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type == "MergeSummary":
            stack.extend(t.op for t in op.inputs)
            continue
        for index in _VALUE_INPUTS.get(op.type, ()):
            value = op.inputs[index]
            channels = value.shape[-1] if value.shape.rank else None
            shape = {"ImageSummary": [0, 1, 1, channels or 1],
                     "AudioSummaryV2": [0, 1]}.get(op.type, [0])
            empty = tf.fill(shape, "") if value.dtype == tf.string else tf.zeros(shape, value.dtype)
            # of unknown static shape, so it may stand in for any input
            replace_input(op, index, tf.compat.v1.placeholder_with_default(empty, shape=None))


class _Recipe(object):
    """How to rebuild summary tensors on the host from a flat list of their inputs."""

    def __init__(self, summaries):
        self.inputs = []  # body tensors to send
        self._steps = []  # (op, [index into inputs or ("summary", k)])
        self._made = {}
        self.outputs = [self._plan(t) for t in summaries]

    def _plan(self, tensor):
        if tensor.ref() in self._made:
            return self._made[tensor.ref()]
        op = tensor.op
        if op.type not in _REBUILD:
            raise ValueError(
                "npu_bridge: the summary %r (op %s) written in model_fn cannot be carried out "
                "of the device loop (iterations_per_loop > 1): only %s are. Write it in a "
                "host_call instead, or use iterations_per_loop=1."
                % (tensor.name, op.type, ", ".join(sorted(_REBUILD))))
        args = []
        for x in op.inputs:
            if op.type == "MergeSummary":
                args.append(("summary", self._plan(x)))
            else:
                args.append(("input", len(self.inputs)))
                self.inputs.append(x)
        self._steps.append((op, args))
        index = len(self._steps) - 1
        self._made[tensor.ref()] = index
        return index

    def rebuild(self, received):
        made = []
        for op, args in self._steps:
            values = [made[i] if kind == "summary" else received[i] for kind, i in args]
            made.append(_REBUILD[op.type](op, values))
        return [made[i] for i in self.outputs]


class LoopSummaries(object):
    """The body's summaries, sent on summary steps and written on the host.

    ``summaries``: the body's summary tensors; ``every``: save_summary_steps;
    ``summary_dir``: model_dir; ``origin``: the int64 tensor (fed by
    ``SummaryOriginHook``) holding the global step after a session's first step.
    """

    def __init__(self, summaries, every, summary_dir, origin, bounds):
        self._recipe = _Recipe(summaries)
        self._every = every
        self._origin = origin
        self._dir = summary_dir
        self._bounds = bounds
        self.outfeed = None

    def _write(self, step, *received):
        """The host side: rebuild the summaries, merge them, write them at ``step``."""
        merged = tf.compat.v1.summary.merge(self._recipe.rebuild(list(received)))
        # A name of its own: writers made in graph mode share a resource by name scope,
        # and host_call's fn makes one under the same default scope.
        writer = tf.compat.v2.summary.create_file_writer(self._dir, name="npu_loop_summaries")
        with writer.as_default(), tf.compat.v2.summary.record_if(True):
            return tf.compat.v2.summary.experimental.write_raw_pb(merged, step=step)

    def enqueue(self, step_after, after, loss):
        """The body's op sending this step's summary inputs when the step is a summary step.

        ``step_after``: the global step after this step (int64), read after ``after``.
        """
        self.outfeed = Outfeed((self._write, [step_after] + list(self._recipe.inputs)),
                               self._bounds, name="npu_summary_outfeed")
        due = tf.logical_and(
            self._origin >= 0,
            tf.equal(tf.math.floormod(step_after - self._origin, self._every), 0))

        def send():
            with tf.control_dependencies([self.outfeed.enqueue(after, step_values=[loss])]):
                return tf.constant(True)

        return tf.cond(due, send, lambda: tf.constant(False), name="npu_summary_step")


class SummaryOriginHook(tf.compat.v1.train.SessionRunHook):
    """Feeds the global step after each session's first step (where records start)."""

    def __init__(self, origin):
        self._origin = origin

    def begin(self):
        # the read the checkpoint saver fetches too: one combination of fetches less
        self._global_step = estimator_lib.get_or_create_global_step_read()

    def after_create_session(self, session, coord):
        self._value = int(session.run(self._global_step)) + 1

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(None, feed_dict={self._origin: self._value})
