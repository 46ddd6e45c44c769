"""The loop plan: what one ``train()`` or ``evaluate()`` call runs, decided once.

NPUEstimator makes one ``LoopPlan`` per call, from its run config and the
call's arguments, before any graph exists, and hands the same object to
everything that shapes or watches the runs: the builder (how many steps one
``Session.run`` may make, the outfeed's bounds), the hooks that size each run
and stop at the right step, the host_call outfeed and the debugging hooks. No
part reads these values back from the graph or from a global: a reader
following ``iterations_per_loop`` goes from the config's table to here, and
from here to the builder.

The plan is immutable. What only exists once the graph is built (the
placeholder that says how many iterations the next run makes, the global step
read after the loop) comes from the builder as ``LoopTensors``.
"""

import collections

from npu_bridge.common.checks import check_int
from npu_bridge.device_loop.outfeed import DEFAULT_BOUNDS

TRAIN = "train"
EVAL = "eval"


class LoopPlan(collections.namedtuple("LoopPlan", [
        "mode", "iterations", "steps", "max_steps", "checkpoint_every", "summary_every",
        "log_every", "single_steps", "outfeed", "summary_dir"])):
    """What one train() or evaluate() call runs.

    Fields:
      mode: TRAIN or EVAL.
      iterations: N, the most steps one ``Session.run`` makes (iterations_per_loop).
      steps: train(steps=) or evaluate(steps=); None for no limit.
      max_steps: train(max_steps=); None for no limit.
      checkpoint_every: runs end at multiples of this global step (checkpoints
        land on them); None when checkpoints are not step-based. It is the job's
        cadence on every rank, also on ranks that save nothing, so that all
        ranks make the same runs (their collectives pair up).
      summary_every: save_summary_steps of the config (0 or None: off).
      log_every: loss and steps/s are logged every this many steps (None: off).
      single_steps: steps that run as a ``Session.run`` of their own (dumps and
        overflow checks), an object with ``run_size(size, step)`` such as
        ``debugging.step_ranges.StepRanges``; None when no step must.
      outfeed: the host_call outfeed's bounds (``outfeed.OutfeedBounds``).
      summary_dir: where summaries model_fn writes inside the loop go (model_dir).
    """

    @property
    def loops(self):
        """True when a run may make more than one step (a device loop is built)."""
        return self.iterations > 1

    @property
    def has_step_limit(self):
        return self.steps is not None or self.max_steps is not None

    def next_run_size(self, step, last_step=None):
        """Iterations for the run that starts at global step ``step``."""
        return next_run_size(self.iterations, step, last_step, self.checkpoint_every,
                             [self.single_steps] if self.single_steps is not None else ())


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


def _call_steps(name, value):
    """A step count given to train()/evaluate(): None or a positive int below 2**31."""
    return None if value is None else check_int(name, value)


def plan_training(config, steps=None, max_steps=None, single_steps=None, job_config=None):
    """The plan of ``train(steps=, max_steps=)`` under ``config`` (an NPURunConfig).

    ``single_steps``: the steps debugging wants run alone (see ``LoopPlan``).
    ``job_config``: the config as the script gave it, when ``config`` is a
    rank's copy (which saves no checkpoints on ranks other than 0); runs are
    cut at its checkpoint steps.
    """
    return LoopPlan(
        mode=TRAIN, iterations=config.iterations_per_loop,
        steps=_call_steps("train() steps", steps),
        max_steps=_call_steps("train() max_steps", max_steps),
        checkpoint_every=(job_config or config).save_checkpoints_steps,
        summary_every=config.save_summary_steps, log_every=config.log_step_count_steps,
        single_steps=single_steps, outfeed=DEFAULT_BOUNDS, summary_dir=config.model_dir)


def plan_evaluation(config, steps=None, single_steps=None):
    """The plan of ``evaluate(steps=)`` under ``config``: N eval steps per run.

    ``single_steps``: the batches debugging wants evaluated alone (counted from
    0 in the call; see ``LoopPlan``).
    """
    return LoopPlan(
        mode=EVAL, iterations=config.iterations_per_loop,
        steps=_call_steps("evaluate() steps", steps), max_steps=None,
        checkpoint_every=None, summary_every=None, log_every=None, single_steps=single_steps,
        outfeed=DEFAULT_BOUNDS, summary_dir=None)


# What the builder hands the hooks once the loop exists (None: one step per run).
LoopTensors = collections.namedtuple("LoopTensors", ["iterations", "step_after"])
LoopTensors.__doc__ = """The built loop's handles for the hooks.

``iterations``: the placeholder saying how many iterations the next run makes
(train; fed by the hooks) or the variable TensorFlow's multi-step eval hook
sets (evaluate). ``step_after``: the global step read after the loop (train).
"""
