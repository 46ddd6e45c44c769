"""Hooks that keep step counting exact when one Session.run runs N steps.

The device loop publishes what these hooks need through graph collections
(``LOOP_ITERATIONS``: the placeholder holding how many steps the next run
makes; ``LOOP_GLOBAL_STEP``: the global step read after the loop). The hooks
are built before the graph exists, so they look the collections up in
``begin`` and behave as the stock hooks when no loop was built.
"""

import time

import tensorflow as tf
from tensorflow.python.training import evaluation

from npu_bridge.debugging.step_ranges import StepRanges

LOOP_ITERATIONS = "npu_bridge_loop_iterations"
LOOP_GLOBAL_STEP = "npu_bridge_loop_global_step"
LOOP_CHECKPOINT_EVERY = "npu_bridge_loop_checkpoint_every"
EVAL_STEPS_PER_RUN = "npu_bridge_eval_steps_per_run"
# Steps that must run alone (dumps): "0|5|10-20" syntax, "*" for every step.
LOOP_SINGLE_STEPS = "npu_bridge_loop_single_steps"


def _collection_item(key):
    items = tf.compat.v1.get_collection(key)
    return items[0] if items else None


def _single_steps():
    return [StepRanges(None if text == "*" else text)
            for text in tf.compat.v1.get_collection(LOOP_SINGLE_STEPS)]


class StepLimitHook(tf.compat.v1.train.StopAtStepHook):
    """StopAtStepHook that, under a device loop, sizes each run to land exactly.

    Each run makes ``min(N, steps left, steps to the next checkpoint)``
    iterations, so train(steps=S) ends at exactly S more steps and
    checkpoints fall on multiples of save_checkpoints_steps.
    """

    def begin(self):
        super(StepLimitHook, self).begin()
        self._iterations = _collection_item(LOOP_ITERATIONS)
        self._step_after = _collection_item(LOOP_GLOBAL_STEP)
        self._checkpoint_every = _collection_item(LOOP_CHECKPOINT_EVERY)
        self._single_steps = _single_steps()
        self._loop_size = loop_size(self._iterations) if self._iterations is not None else 1

    def after_create_session(self, session, coord):
        super(StepLimitHook, self).after_create_session(session, coord)
        self._step = session.run(self._global_step_tensor)
        if self._last_step is None:  # the base class sets it in after_create_session
            self._last_step = self._step + self._num_steps

    def before_run(self, run_context):
        if self._iterations is None:
            return super(StepLimitHook, self).before_run(run_context)
        return tf.compat.v1.train.SessionRunArgs(
            self._step_after, feed_dict={self._iterations: next_run_size(
                self._loop_size, self._step, self._last_step, self._checkpoint_every,
                self._single_steps)})

    def after_run(self, run_context, run_values):
        if self._iterations is None:
            return super(StepLimitHook, self).after_run(run_context, run_values)
        self._step = run_values.results
        if self._step >= self._last_step:
            run_context.request_stop()


def loop_size(iterations):
    """N, the loop length the placeholder defaults to."""
    return int(tf.get_static_value(iterations.op.inputs[0]))


def next_run_size(size, step, last_step, checkpoint_every, single_steps=()):
    """Iterations for the next run: N, cut at the last step, the next checkpoint
    and around steps that run alone (``single_steps``: StepRanges)."""
    if last_step is not None:
        size = min(size, last_step - step)
    if checkpoint_every:
        size = min(size, checkpoint_every - step % checkpoint_every)
    for steps in single_steps:
        size = steps.run_size(size, step)
    return max(size, 1)


class CheckpointAlignHook(tf.compat.v1.train.SessionRunHook):
    """Without a step limit, still cut runs at checkpoint boundaries."""

    def begin(self):
        self._iterations = _collection_item(LOOP_ITERATIONS)
        self._step_after = _collection_item(LOOP_GLOBAL_STEP)
        self._checkpoint_every = _collection_item(LOOP_CHECKPOINT_EVERY)
        self._single_steps = _single_steps()
        self._global_step = tf.compat.v1.train.get_global_step()
        self._loop_size = loop_size(self._iterations)

    def after_create_session(self, session, coord):
        self._step = session.run(self._global_step)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(
            self._step_after, feed_dict={self._iterations: next_run_size(
                self._loop_size, self._step, None, self._checkpoint_every,
                self._single_steps)})

    def after_run(self, run_context, run_values):
        self._step = run_values.results


class EvalStepLimitHook(evaluation._MultiStepStopAfterNEvalsHook):  # pylint: disable=protected-access
    """Eval stop hook that learns N from the graph (1 when no eval loop was built).

    Each run makes ``min(N, evals left)`` steps, cut around steps that must run
    alone (dumped steps of evaluate(), counted from 0 in the call).
    """

    def begin(self):
        steps_per_run = _collection_item(EVAL_STEPS_PER_RUN)
        self._steps_per_run_initial_value = steps_per_run or 1
        self._single_steps = _single_steps()
        super(EvalStepLimitHook, self).begin()

    def _run_size(self, completed):
        size = self._steps_per_run_initial_value
        if self._num_evals is not None:
            size = min(size, self._num_evals - completed)
        for steps in self._single_steps:
            size = steps.run_size(size, completed)
        return max(size, 1)

    def after_create_session(self, session, coord):
        super(EvalStepLimitHook, self).after_create_session(session, coord)
        if self._single_steps:
            self._steps_per_run_variable.load(self._run_size(0), session=session)

    def after_run(self, run_context, run_values):
        super(EvalStepLimitHook, self).after_run(run_context, run_values)
        if self._single_steps:
            completed = run_values.results["evals_completed"]
            self._steps_per_run_variable.load(self._run_size(completed),
                                              session=run_context.session)


class LoopLoggingHook(tf.compat.v1.train.SessionRunHook):
    """Logs loss, step and steps/sec every ``every_n_steps`` global steps.

    Replaces the Estimator's per-run LoggingTensorHook, which under a loop of
    N steps would log only every N * every_n_steps steps.
    """

    def __init__(self, loss, every_n_steps):
        self._loss = loss
        self._every = every_n_steps

    def begin(self):
        self._step_after = _collection_item(LOOP_GLOBAL_STEP)

    def after_create_session(self, session, coord):
        self._last_step = None
        self._last_time = None

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs([self._loss, self._step_after])

    def after_run(self, run_context, run_values):
        loss, step = run_values.results
        now = time.time()
        if self._last_step is None:
            self._last_step, self._last_time = step, now
            tf.compat.v1.logging.info("loss = %s, step = %d", loss, step)
        elif step // self._every > self._last_step // self._every:
            rate = (step - self._last_step) / max(now - self._last_time, 1e-9)
            tf.compat.v1.logging.info("loss = %s, step = %d (%.1f steps/sec)", loss, step, rate)
            self._last_step, self._last_time = step, now
