"""A SessionRunHook base that captures the runs of named steps with tfdbg.

It keeps track of the global step before each run (``loop_hooks.RunSteps``)
and, when that step is named, adds tfdbg's watches to the run and hands the
captured ops to ``on_capture(step, ops)``. Under the device loop the call's
plan makes a named step a run of its own (``LoopPlan.single_steps``); a
capture that nonetheless spans several steps is reported, not misfiled.
"""

import tensorflow as tf

from npu_bridge.debugging.capture import RunCapture
from npu_bridge.device_loop.loop_hooks import RunSteps


class WatchedStepsHook(tf.compat.v1.train.SessionRunHook):
    """Captures the runs of the steps in ``steps`` (a StepRanges).

    ``loop``: the built device loop's LoopTensors, None for one step per run.
    """

    def __init__(self, steps, loop=None):
        self._steps = steps
        self._run_steps = RunSteps(loop)
        self._capture = None

    def on_capture(self, step, ops):
        raise NotImplementedError

    def begin(self):
        self._graph = tf.compat.v1.get_default_graph()
        self._run_steps.begin()

    def after_create_session(self, session, coord):
        self._step = self._run_steps.start(session)

    def before_run(self, run_context):
        if self._step not in self._steps:
            return tf.compat.v1.train.SessionRunArgs(self._run_steps.fetch)
        self._capture = RunCapture()
        return tf.compat.v1.train.SessionRunArgs(
            self._run_steps.fetch, options=self._capture.run_options(self._graph))

    def after_run(self, run_context, run_values):
        step = self._step
        self._step = self._run_steps.finish(run_context, run_values.results)
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
