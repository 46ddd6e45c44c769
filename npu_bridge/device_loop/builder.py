"""Builds the per-run programs: one step (N == 1) or an in-graph loop of N steps.

In the loop, ``model_fn`` is traced once inside a ``while_v2`` body: each
iteration pulls a batch from the dataset iterator, runs the step and, with a
host_call, enqueues that step's values to the outfeed. Variables that
model_fn creates are lifted to the outer graph (TensorFlow does that for
function bodies), so they exist once. Iterations run strictly one after
another (``parallel_iterations=1`` and a control edge from every step's ops to
the loop counter), which keeps results identical to N separate runs.

The loop's results that the Estimator and hooks fetch afterwards (the last
loss, metric values, tensors held by model_fn's hooks) are copied out of the
body by ``loop_values``; summaries model_fn writes leave through an outfeed
of their own on summary steps (``loop_summaries``); a Scaffold model_fn built
is rebuilt outside (``scaffolds``). A NaN loss ends the training loop after
its step, so the stock NanTensorHook stops training there. The loop also
carries the global step each iteration started from, so that a fetch of the
global step in the run pairs with the last iteration's loss. How many steps a run may make and the outfeed's
bounds come from the call's ``LoopPlan``; the built program hands the hooks
the loop's tensors (``plan.LoopTensors``) rather than leaving them in the graph
for someone to look up.
"""

import collections
import contextlib

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.device_loop.input_release import release_op as input_release_op
from npu_bridge.device_loop.input_start import started_by_scaffold
from npu_bridge.device_loop.loop_values import (
    HookTensors, NamedValues, TrainingRunHook, mirror, read_after)
from npu_bridge.device_loop.loop_summaries import (
    LoopSummaries, SummaryOriginHook, body_summaries, drop_body_summaries, silence)
from npu_bridge.device_loop.outfeed import HostCallHook, Outfeed, anchor
from npu_bridge.device_loop.scaffolds import (
    initialisers_stay_out_of_the_loop, local_variables, outer_scaffold)
from npu_bridge.device_loop.plan import LoopTensors
from npu_bridge.tf_private import estimator as estimator_lib
from npu_bridge.tf_private.graph import fetch_global_step_as_logged, while_loop

ModeKeys = tf.estimator.ModeKeys

# What a built program hands back to the estimator; ``loop`` is a LoopTensors,
# or None when each Session.run makes one step. ``scaffold`` is the one the
# session uses (``spec.scaffold`` rebuilt outside the loop, see ``scaffolds``).
# ``input_release`` ends the input pipeline before the session closes
# (``input_release``), or is None.
_Program = collections.namedtuple(
    "Program", ["spec", "hooks", "update_op", "eval_dict", "loop", "scaffold", "input_release"])


def Program(spec, hooks, update_op, eval_dict, loop, scaffold=None, input_release=None):  # pylint: disable=invalid-name
    """The program, its input iterator started by its scaffold's local init where
    that can be done (``input_start``) rather than by a hook. Without ``scaffold``
    the session uses the spec's (training), which is then replaced too."""
    hooks, starting = started_by_scaffold(
        list(hooks), scaffold if scaffold is not None else spec.scaffold)
    if scaffold is None and starting is not spec.scaffold:
        spec = spec._replace(scaffold=starting)
    return _Program(spec, hooks, update_op, eval_dict, loop, starting, input_release)


@contextlib.contextmanager
def resource_variables():
    """Create resource variables while the loop is traced, whatever the script chose.

    A loop body is a function graph, which can only update resource variables;
    scripts that called ``tf.compat.v1.disable_v2_behavior()`` would otherwise
    make reference variables there.
    """
    was_enabled = tf.compat.v1.resource_variables_enabled()
    tf.compat.v1.enable_resource_variables()
    try:
        yield
    finally:
        if not was_enabled:
            tf.compat.v1.disable_resource_variables()


def _is_dataset(result):
    return isinstance(result, (tf.data.Dataset, tf.compat.v1.data.Dataset))


def _host_call(spec):
    """The spec's host_call; only the writer rank (rank 0) runs host_calls."""
    if not runtime.is_writer_rank():
        return None
    return getattr(spec, "host_call", None)


def _attach_outfeed(spec, after, bounds):
    """(outfeed, enqueue op) sending the spec's host_call values after ``after``, or Nones."""
    host_call = _host_call(spec)
    if host_call is None:
        return None, None
    outfeed = Outfeed(host_call, bounds)
    enqueue = outfeed.enqueue(after, step_values=[spec.loss])
    return outfeed, enqueue


def _finish_outfeed(outfeed, hooks):
    if outfeed is not None:
        outfeed.build_host_side()
        hooks.append(HostCallHook(outfeed))


def _anchored(items):
    """Control inputs for the loop counter: every step op, reached through a safe edge."""
    return [anchor(item if isinstance(item, tf.Operation) else item.op) for item in items]


def _loop(n_iterations, body):
    """Run ``body`` n_iterations times in order; returns the final counter tensor.

    ``body(left)`` returns ``left - 1`` once the step's ops have run. The loop
    counts down from ``n_iterations`` to 0 so that the run's length is the
    counter's initial value: a bound the condition compared against would be
    one more loop variable, carried through every iteration (three more
    executor nodes per step, about 8% of the tiny benchmark model's step).
    """
    outputs = while_loop(lambda left: left > 0, body, [n_iterations],
                         parallel_iterations=1, name="npu_device_loop")
    return outputs[0] if isinstance(outputs, (list, tuple)) else outputs


def _training_loop(n_iterations, body, step_before):
    """Run the training ``body`` up to n_iterations times in order, ending early after
    a step whose loss is NaN.

    The stock Estimator's NanTensorHook then sees that step's loss (the loss the
    estimator fetches is the last iteration's) and stops training at that step,
    as the plain Estimator does. An infinite loss does not end the loop: the
    plain Estimator trains on through it too (loss scaling skips such steps).
    Loop variables: the steps left, counting down as in ``_loop`` (a NaN step
    sets it to 0, see ``_steps_left_after``), the global step the last
    iteration started from and the global step after it (the next iteration's
    start). Grappler drops the last two from the loop in runs that do not fetch
    the global step variable (``fetch_global_step_as_logged``), so they cost
    nothing then. Returns the final steps left and the last iteration's start.
    """
    done, last_start, _ = while_loop(
        lambda left, start, after: left > 0, body, [n_iterations, step_before, step_before],
        parallel_iterations=1, name="npu_device_loop")
    return done, last_start


def _steps_left_after(left, loss):
    """``left - 1``, or 0 after a step whose loss holds a NaN, which ends the loop there.

    Folded into the counter rather than carried as a flag of its own: a flag's
    loop variable (a Merge, Switch and NextIteration per iteration), its
    negation and the condition's ``and`` cost four executor nodes per step
    more than the select. Written ``left - where(nan, left, 1)`` so that the
    select shares the subtraction and its constant with the count-down.
    """
    loss = tf.convert_to_tensor(loss)
    if not loss.dtype.is_floating:
        return left - 1
    nan = tf.math.is_nan(loss)
    if loss.shape.rank != 0:
        nan = tf.reduce_any(nan)
    return left - tf.where(nan, left, 1)


class ProgramBuilder(object):
    """Builds train/eval programs for an estimator's model_fn and input_fn.

    ``call_model_fn(features, labels, mode)`` calls the user's model_fn;
    ``plan`` is the call's LoopPlan. Looping needs input_fn to return a
    tf.data.Dataset; with tensors the program runs one step per Session.run.
    """

    def __init__(self, call_model_fn, plan):
        self._call_model_fn = call_model_fn
        self._plan = plan
        self._input_release = None

    def _input(self, input_result, mode):
        looped = self._plan.loops and _is_dataset(input_result)
        if self._plan.loops and not looped:
            tf.compat.v1.logging.warning(
                "iterations_per_loop=%d needs input_fn to return a tf.data.Dataset; it "
                "returned %s, so %s runs one step per Session.run.",
                self._plan.iterations, type(input_result).__name__, mode)
        if not looped:
            features, labels, hooks = estimator_lib.parse_input_fn_result(input_result)
            iterators = [it for it in map(estimator_lib.dataset_iterator, hooks) if it is not None]
            self._input_release = input_release_op(iterators[0]) if iterators else None
            return False, (features, labels), hooks
        iterator = tf.compat.v1.data.make_initializable_iterator(input_result)
        self._input_release = input_release_op(iterator)
        return True, iterator, [estimator_lib.DatasetInitializerHook(iterator)]

    # ---- training -------------------------------------------------------

    def train(self, input_result, outer_hooks=()):
        """``outer_hooks``: the hooks passed to train(), for the names they hold."""
        looped, source, hooks = self._input(input_result, ModeKeys.TRAIN)
        if not looped:
            # model_fn waits for the hooks' read of the global step before the step,
            # as TensorFlow's comment on that read intends: otherwise the read races
            # the step's increment and SummarySaverHook's steps drift by one.
            read = estimator_lib.get_or_create_global_step_read(tf.compat.v1.get_default_graph())
            with tf.control_dependencies([read] if read is not None else []):
                spec = self._call_model_fn(source[0], source[1], ModeKeys.TRAIN)
            locals_of_model_fn = local_variables()
            outfeed, enqueue = _attach_outfeed(spec, [spec.train_op], self._plan.outfeed)
            if enqueue is not None:
                spec = spec._replace(train_op=tf.group(spec.train_op, enqueue))
            scaffold = outer_scaffold(spec.scaffold, locals_of_model_fn)
            if scaffold is not spec.scaffold:
                spec = spec._replace(scaffold=scaffold)
            _finish_outfeed(outfeed, hooks)
            return Program(spec, hooks, None, None, None, input_release=self._input_release)

        built = {}
        iterations = tf.compat.v1.placeholder_with_default(
            tf.constant(self._plan.iterations), [], name="iterations_per_loop")
        global_step = tf.compat.v1.train.get_global_step()
        summaries_wanted = bool(self._plan.summary_every) and runtime.is_writer_rank()
        origin = tf.compat.v1.placeholder_with_default(
            tf.constant(-1, tf.int64), [], name="npu_summary_origin")

        def body(left, unused_start, start):
            del unused_start
            features, labels = estimator_lib.parse_iterator_result(source.get_next())
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN)
            built["locals_of_model_fn"] = local_variables()
            body_graph = tf.compat.v1.get_default_graph()
            after = [spec.train_op]
            with tf.control_dependencies([spec.train_op]):
                step_after = tf.identity(global_step.read_value())
            outfeed, enqueue = _attach_outfeed(spec, [spec.train_op], self._plan.outfeed)
            if enqueue is not None:
                after.append(enqueue)
            summaries = None
            if summaries_wanted:
                summaries = self._summaries(body_graph, spec.loss, origin)
                if summaries is not None:
                    after.append(summaries.enqueue(tf.cast(step_after, tf.int64),
                                                   [spec.train_op], spec.loss))
            silence(body_summaries(body_graph))
            last_loss, keep_loss = mirror(spec.loss, "npu_loop_last_loss")
            after.append(keep_loss)
            hook_tensors = HookTensors(
                list(spec.training_hooks) + list(spec.training_chief_hooks), body_graph, after)
            named = NamedValues(body_graph, after, outer_hooks)
            built.update(spec=spec, outfeed=outfeed, last_loss=last_loss,
                         hook_tensors=hook_tensors, named=named, summaries=summaries)
            with tf.control_dependencies(_anchored(after)):
                return (_steps_left_after(left, spec.loss), tf.identity(start),
                        tf.identity(step_after))

        # Only runs the estimator marks make iterations (see loop_values.TrainingRunHook).
        training_run = tf.compat.v1.placeholder_with_default(False, [], name="npu_training_run")
        # The loop waits for the hooks' read of the global step, as model_fn's step
        # does in the unlooped program above: a hook fetching that read gets the
        # step the run started from, not a step the loop has already taken.
        read = estimator_lib.get_or_create_global_step_read(tf.compat.v1.get_default_graph())
        with tf.name_scope("npu_loop"), resource_variables(), \
                tf.control_dependencies([read] if read is not None else []):
            done, last_start = _training_loop(
                tf.where(training_run, iterations, 0), body, global_step.read_value())
        initialisers_stay_out_of_the_loop(done)
        marks = TrainingRunHook(training_run)
        hooks.append(marks)
        drop_body_summaries(tf.compat.v1.get_default_graph())
        inner = built["spec"]
        built["hook_tensors"].point_hooks_outside(done)
        built["named"].alias_outside(done)
        with tf.control_dependencies([done]):
            loss = tf.identity(built["last_loss"].read_value(), name="last_loss")
            step_after = tf.identity(global_step.read_value(), name="global_step_after")
        fetch_global_step_as_logged(global_step, training_run, last_start, step_after,
                                    marks.in_marked_run)
        _finish_outfeed(built["outfeed"], hooks)
        if built["summaries"] is not None:
            _finish_outfeed(built["summaries"].outfeed, hooks)
            hooks.append(SummaryOriginHook(origin))
        spec = tf.estimator.EstimatorSpec(
            mode=ModeKeys.TRAIN, loss=loss, train_op=tf.group(done, step_after),
            training_hooks=inner.training_hooks,
            training_chief_hooks=inner.training_chief_hooks,
            scaffold=outer_scaffold(inner.scaffold, built["locals_of_model_fn"]))
        return Program(spec, hooks, None, None, LoopTensors(iterations, step_after),
                       input_release=self._input_release)

    def _summaries(self, body_graph, loss, origin):
        """LoopSummaries for what model_fn wrote in the body (plus the Estimator's
        loss summary when none is named ``loss``), or None when nothing was written."""
        if not any(t.op.name == "loss" for t in body_summaries(body_graph)):
            tf.compat.v1.summary.scalar("loss", loss)
        summaries = body_summaries(body_graph)
        if not summaries:
            return None
        return LoopSummaries(summaries, self._plan.summary_every, self._plan.summary_dir,
                             origin, self._plan.outfeed)

    # ---- evaluation -----------------------------------------------------

    def _eval_step(self, features, labels):
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL)
        metrics = estimator_lib.verify_and_create_loss_metric(
            dict(spec.eval_metric_ops or {}), spec.loss)
        update_op, values = estimator_lib.extract_metric_update_ops(metrics)
        return spec, update_op, values

    def evaluate(self, input_result):
        looped, source, hooks = self._input(input_result, ModeKeys.EVAL)
        # The variable TensorFlow's multi-step eval hook sets before every run,
        # made before the Estimator reads the default local init op (it does when
        # model_fn's Scaffold has a local init op), so that op initialises it.
        steps_per_run = estimator_lib.get_or_create_steps_per_run_variable()
        if not looped:
            spec, update_op, values = self._eval_step(*source)
            locals_of_model_fn = local_variables()
            # "Sent after the loss is computed": the values wait for the metric updates.
            outfeed, enqueue = _attach_outfeed(spec, [update_op], self._plan.outfeed)
            if enqueue is not None:
                update_op = tf.group(update_op, enqueue)
            _finish_outfeed(outfeed, hooks)
            return Program(spec, hooks, update_op, values, None,
                           outer_scaffold(spec.scaffold, locals_of_model_fn),
                           input_release=self._input_release)

        built = {}

        def body(left):
            features, labels = estimator_lib.parse_iterator_result(source.get_next())
            spec, update_op, values = self._eval_step(features, labels)
            silence(body_summaries(tf.compat.v1.get_default_graph()))
            built["locals_of_model_fn"] = local_variables()
            after = [update_op]
            outfeed, enqueue = _attach_outfeed(spec, [update_op], self._plan.outfeed)
            if enqueue is not None:
                after.append(enqueue)
            mirrors = {}
            read_after(list(values.values()), update_op)
            with tf.control_dependencies([update_op]):
                for name, value in values.items():
                    var, keep = mirror(value, "npu_loop_metric_%d" % len(mirrors))
                    mirrors[name] = var
                    after.append(keep)
            hook_tensors = HookTensors(list(spec.evaluation_hooks),
                                        tf.compat.v1.get_default_graph(), after)
            built.update(spec=spec, outfeed=outfeed, mirrors=mirrors, hook_tensors=hook_tensors)
            with tf.control_dependencies(_anchored(after)):
                return left - 1

        with tf.name_scope("npu_eval_loop"), resource_variables():
            done = _loop(steps_per_run.read_value(), body)
        initialisers_stay_out_of_the_loop(done)
        # The plain Estimator writes no model_fn summaries in evaluate().
        drop_body_summaries(tf.compat.v1.get_default_graph())
        _finish_outfeed(built["outfeed"], hooks)
        built["hook_tensors"].point_hooks_outside(done)
        eval_dict = {name: var.read_value() for name, var in built["mirrors"].items()}
        return Program(built["spec"], hooks, tf.group(done), eval_dict,
                       LoopTensors(steps_per_run, None),
                       outer_scaffold(built["spec"].scaffold, built["locals_of_model_fn"]),
                       input_release=self._input_release)
