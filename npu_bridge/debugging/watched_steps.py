"""A SessionRunHook base that captures the runs of named steps with tfdbg.

It keeps track of the step before each run and, when that step is named,
adds tfdbg's watches to the run and hands the captured ops to
``on_capture(step, ops)``. What a step is depends on the call (``StepSource``):

* ``train()``: the global step (``loop_hooks.RunSteps``: the device loop's
  step read after it, or the variable after a one-step run);
* ``evaluate()``: the batches this call has evaluated so far (its eval step
  counter), from 0;
* ``predict()``: the batches this call has predicted so far (one per run), from 0.

Under the device loop the call's plan makes a named step a run of its own
(``LoopPlan.single_steps``); a capture that nonetheless spans several steps
is reported, not misfiled.
"""

import tensorflow as tf

from npu_bridge.debugging.capture import RunCapture
from npu_bridge.device_loop.loop_hooks import RunSteps


class StepSource(object):
    """Which step a run starts at: ``first`` after the session starts, then ``next``."""

    def begin(self):
        """Called in the hook's ``begin``, in the graph."""

    def first(self, session):
        raise NotImplementedError

    def fetch(self):
        """A tensor to fetch with every run (handed to ``next``), or None."""
        return None

    def next(self, run_context, fetched, step):
        """The step the following run starts at; ``step``: where the last run started."""
        raise NotImplementedError


class TrainingSteps(StepSource):
    """Step k of train(): the run that starts while the global step reads k.

    ``loop``: the built device loop's LoopTensors, None for one step per run.
    """

    def __init__(self, loop=None):
        self._run_steps = RunSteps(loop)

    def begin(self):
        self._run_steps.begin()

    def first(self, session):
        return self._run_steps.start(session)

    def fetch(self):
        return self._run_steps.fetch

    def next(self, run_context, fetched, step):
        return self._run_steps.finish(run_context, fetched)


class EvaluationSteps(StepSource):
    """Step k of evaluate(): its k-th batch, by the evaluation's own step counter.

    The counter is updated by the run itself, so it is read after the run.
    """

    def begin(self):
        self._counter = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.EVAL_STEP)[0]

    def first(self, session):
        return int(session.run(self._counter))

    def next(self, run_context, fetched, step):
        return int(run_context.session.run(self._counter))


class PredictionSteps(StepSource):
    """Step k of predict(): its k-th batch (predict runs one batch per Session.run)."""

    def first(self, session):
        return 0

    def next(self, run_context, fetched, step):
        return step + 1


class WatchedStepsHook(tf.compat.v1.train.SessionRunHook):
    """Captures the runs of the steps in ``steps`` (a StepRanges), counted by ``source``."""

    def __init__(self, steps, source=None):
        self._steps = steps
        self._source = source or TrainingSteps()
        self._capture = None

    def on_capture(self, step, ops):
        raise NotImplementedError

    def begin(self):
        self._graph = tf.compat.v1.get_default_graph()
        self._source.begin()

    def after_create_session(self, session, coord):
        self._step = self._source.first(session)

    def before_run(self, run_context):
        fetch = self._source.fetch()
        if self._step not in self._steps:
            return tf.compat.v1.train.SessionRunArgs(fetch)
        self._capture = RunCapture()
        return tf.compat.v1.train.SessionRunArgs(
            fetch, options=self._capture.run_options(self._graph))

    def after_run(self, run_context, run_values):
        step = self._step
        self._step = self._source.next(run_context, run_values.results, step)
        if self._capture is None:
            return
        capture, self._capture = self._capture, None
        try:
            if self._step - step > 1:
                tf.compat.v1.logging.warning(
                    "%s: the run starting at step %d made %d steps, so its capture holds "
                    "all of them; it is not written.", type(self).__name__, step,
                    self._step - step)
                return
            self.on_capture(step, capture.read())
        finally:
            capture.close()

    def end(self, session):
        if self._capture is not None:
            self._capture.close()
            self._capture = None
