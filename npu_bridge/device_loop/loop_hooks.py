"""Hooks that keep step counting exact when one Session.run runs N steps.

Each hook is made after the program is built, from the call's ``LoopPlan``
(N, the step limit, the checkpoint cadence, the steps that run alone) and
the built loop's ``LoopTensors`` (the placeholder saying how many iterations
the next run makes, the global step read after the loop); ``loop`` is None
when each run makes one step, and the hooks then behave as the stock ones.
``RunSteps`` is how any hook knows the global step before and after a run.
"""

import time

import tensorflow as tf

from npu_bridge.tf_private.estimator import MultiStepStopAfterNEvalsHook


class RunSteps(object):
    """The global step before each run and after it, read the cheapest way.

    With a device loop the step after the run is fetched with the run (the
    loop's ``step_after``); with one step per run it is read after the run.
    A hook calls ``begin()``, ``start(session)`` from after_create_session,
    fetches ``fetch`` in before_run and calls ``finish(run_context, fetched)``.
    """

    def __init__(self, loop):
        self.fetch = loop.step_after if loop is not None else None
        self.step = None

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def start(self, session):
        self.step = int(session.run(self._global_step))
        return self.step

    def finish(self, run_context, fetched):
        """Records and returns the global step after the run."""
        if self.fetch is not None:
            self.step = int(fetched)
        else:
            self.step = int(run_context.session.run(self._global_step))
        return self.step


class StepLimitHook(tf.compat.v1.train.StopAtStepHook):
    """StopAtStepHook that, under a device loop, sizes each run to land exactly.

    Each run makes ``min(N, steps left, steps to the next checkpoint)``
    iterations (``LoopPlan.next_run_size``), so train(steps=S) ends at exactly
    S more steps and checkpoints fall on multiples of save_checkpoints_steps.
    """

    def __init__(self, plan, loop):
        super(StepLimitHook, self).__init__(num_steps=plan.steps, last_step=plan.max_steps)
        self._plan = plan
        self._loop = loop

    def after_create_session(self, session, coord):
        super(StepLimitHook, self).after_create_session(session, coord)
        self._step = session.run(self._global_step_tensor)
        if self._last_step is None:  # the base class sets it in after_create_session
            self._last_step = self._step + self._num_steps

    def before_run(self, run_context):
        if self._loop is None:
            return super(StepLimitHook, self).before_run(run_context)
        return tf.compat.v1.train.SessionRunArgs(
            self._loop.step_after, feed_dict={self._loop.iterations: self._plan.next_run_size(
                self._step, self._last_step)})

    def after_run(self, run_context, run_values):
        if self._loop is None:
            return super(StepLimitHook, self).after_run(run_context, run_values)
        self._step = run_values.results
        if self._step >= self._last_step:
            run_context.request_stop()


class CheckpointAlignHook(tf.compat.v1.train.SessionRunHook):
    """Without a step limit, still cut runs at checkpoints and around single steps."""

    def __init__(self, plan, loop):
        self._plan = plan
        self._loop = loop
        self._steps = RunSteps(loop)

    def begin(self):
        self._steps.begin()

    def after_create_session(self, session, coord):
        self._steps.start(session)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(
            self._steps.fetch, feed_dict={self._loop.iterations: self._plan.next_run_size(
                self._steps.step)})

    def after_run(self, run_context, run_values):
        self._steps.finish(run_context, run_values.results)


def training_loop_hooks(plan, loop):
    """(hooks for train()'s own list, hooks for the worker list) that the plan asks for.

    The step limit goes where the stock Estimator puts its StopAtStepHook (after
    the caller's hooks); without a limit, a looped run is still cut at
    checkpoints.
    """
    limit = [StepLimitHook(plan, loop)] if plan.has_step_limit else []
    align = [CheckpointAlignHook(plan, loop)] if loop is not None and not limit else []
    return limit, align


class EvalStepLimitHook(MultiStepStopAfterNEvalsHook):
    """TensorFlow's multi-step eval hook, N eval steps per run (1 without an eval loop).

    Each run makes ``min(N, evals left)`` steps, cut around steps that must run
    alone (``plan.single_steps``: dumped steps of evaluate(), counted from 0 in
    the call).
    """

    def __init__(self, plan, loop):
        super(EvalStepLimitHook, self).__init__(
            num_evals=plan.steps, steps_per_run=plan.iterations if loop is not None else 1)
        self._single_steps = (plan.single_steps
                              if loop is not None and plan.single_steps is not None else None)

    def _run_size(self, completed):
        size = self._steps_per_run_initial_value
        if self._num_evals is not None:
            size = min(size, self._num_evals - completed)
        return max(self._single_steps.run_size(size, completed), 1)

    def after_create_session(self, session, coord):
        super(EvalStepLimitHook, self).after_create_session(session, coord)
        if self._single_steps is not None:
            self._steps_per_run_variable.load(self._run_size(0), session=session)

    def after_run(self, run_context, run_values):
        super(EvalStepLimitHook, self).after_run(run_context, run_values)
        if self._single_steps is not None:
            completed = run_values.results["evals_completed"]
            self._steps_per_run_variable.load(self._run_size(completed),
                                              session=run_context.session)


class LoopLoggingHook(tf.compat.v1.train.SessionRunHook):
    """Logs loss, step and steps/sec every ``plan.log_every`` global steps.

    Replaces the Estimator's per-run LoggingTensorHook, which under a loop of
    N steps would log only every N * every_n_steps steps.
    """

    def __init__(self, loss, plan, loop):
        self._loss = loss
        self._every = plan.log_every
        self._step_after = loop.step_after

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
