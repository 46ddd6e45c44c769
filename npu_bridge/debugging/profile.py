"""Profiles (``ProfilingConfig(enable_profiling=True)``) with TensorFlow's profiler.

TensorFlow's profiler (``tf.profiler.experimental.start/stop``) traces what
the runtime does, graph-mode Session runs included, and writes
``<logdir>/plugins/profile/<run>/<host>.xplane.pb``, which TensorBoard's
profile tab reads (``tensorboard --logdir <logdir>``; the tab needs the
``tensorboard-plugin-profile`` package). ``<logdir>`` is model_dir, or the
profiling_options' "output".

Which steps: profiling_options is the original's JSON (a string or a dict).
Its Ascend keys (training_trace, task_trace, aicpu, fp_point, bp_point,
aic_metrics, hccl, storage_limit, ...) steer Ascend's hardware profiler and
have no effect here (logged once); "output" is honoured, and "steps" (the
dump_step syntax, e.g. "10-19") names the steps to trace, one trace per range.
Without "steps" the window is DEFAULT_STEPS: a few steps after the first,
which carries the one-time set-up. Profiling does not change how runs are cut:
under the device loop the runs that hold the named steps are traced whole.
"""

import json

import tensorflow as tf

from npu_bridge.common.log_once import first_time
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.device_loop.loop_hooks import RunSteps

DEFAULT_STEPS = "1-5"
_HONOURED = ("output", "steps")


def parse_profiling_options(options):
    """{key: value} from profiling_options (None, a JSON string or a dict)."""
    if options is None:
        return {}
    if isinstance(options, dict):
        parsed = dict(options)
    elif isinstance(options, str):
        try:
            parsed = json.loads(options) if options.strip() else {}
        except ValueError as error:
            raise ValueError("profiling_options must be JSON such as "
                             "'{\"output\": \"/tmp/profiling\", \"steps\": \"10-19\"}'; "
                             "got %r (%s)." % (options, error))
    else:
        raise TypeError("profiling_options must be a JSON string or a dict; got %s %r."
                        % (type(options).__name__, options))
    if not isinstance(parsed, dict):
        raise ValueError("profiling_options must be a JSON object; got %r." % (options,))
    StepRanges(parsed.get("steps", DEFAULT_STEPS), what="profiling_options 'steps'")
    return parsed


def profile_steps(options):
    """The StepRanges that profiling_options ask to trace."""
    ignored = [key.split(".", 1)[1] for key in first_time(
        "profiling_options." + key for key in set(options) - set(_HONOURED))]
    if ignored:
        tf.compat.v1.logging.warning(
            "ProfilingConfig: profiling_options %s steer Ascend's profiler and have no "
            "effect here; TensorFlow's profiler traces steps %s.", ", ".join(ignored),
            options.get("steps", DEFAULT_STEPS))
    return StepRanges(options.get("steps", DEFAULT_STEPS), what="profiling_options 'steps'")


class ProfileHook(tf.compat.v1.train.SessionRunHook):
    """Traces the runs that hold the steps of each range in ``steps`` into ``logdir``.

    ``run_size``: the most steps one run makes (N under the device loop);
    ``loop``: the built loop's LoopTensors, None for one step per run.
    """

    def __init__(self, logdir, steps, run_size=1, loop=None):
        self._logdir = logdir
        self._pending = steps.ranges if not steps.every_step else [(0, float("inf"))]
        self._run_size = run_size
        self._run_steps = RunSteps(loop)
        self._tracing = None  # the range being traced
        self.traced = []      # (first step, step after the last run) per trace

    def begin(self):
        self._run_steps.begin()

    def after_create_session(self, session, coord):
        self._step = self._run_steps.start(session)
        self._pending = [(first, last) for first, last in self._pending if last >= self._step]

    def before_run(self, run_context):
        if self._tracing is None and self._pending:
            first, last = self._pending[0]
            if first <= self._step + self._run_size - 1:
                self._start(self._pending.pop(0))
        return tf.compat.v1.train.SessionRunArgs(self._run_steps.fetch)

    def after_run(self, run_context, run_values):
        if self._run_steps.fetch is not None or self._tracing is not None or self._pending:
            self._step = self._run_steps.finish(run_context, run_values.results)
        if self._tracing is not None and self._step > self._tracing[1]:
            self._stop()

    def end(self, session):
        if self._tracing is not None:
            self._stop()

    def _start(self, window):
        try:
            tf.profiler.experimental.start(self._logdir)
        except Exception as error:  # another profiler session is running
            tf.compat.v1.logging.warning("ProfilingConfig: could not start TensorFlow's "
                                         "profiler (%s); steps %d-%d are not traced.",
                                         error, window[0], window[1])
            return
        self._tracing = window
        self._started_at = self._step

    def _stop(self):
        tf.profiler.experimental.stop()
        self.traced.append((self._started_at, self._step))
        tf.compat.v1.logging.info(
            "Profiled steps %d-%d into %s/plugins/profile (tensorboard --logdir %s)",
            self._started_at, self._step - 1, self._logdir, self._logdir)
        self._tracing = None
