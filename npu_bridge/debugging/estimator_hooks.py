"""Which debugging hooks a run config asks for (none when dumping and profiling are off).

NPUEstimator asks ``single_steps(config)`` when it plans a train() or
evaluate() call (the plan's runs are cut so that each such step runs alone,
on every rank, so collectives stay in step) and ``training_hooks``,
``evaluation_hooks`` or ``prediction_hooks`` once the graph is built. Dumps
and overflow checks apply to all three calls; evaluate() and predict() write
under ``<dump_path>/evaluate/`` and ``<dump_path>/predict/``, their step k
being the call's k-th batch (from 0). Profiles cover training. Only the
writer rank (rank 0) dumps and profiles.
"""

import os

import tensorflow as tf

from npu_bridge.debugging.dump import OpDumpHook
from npu_bridge.debugging.overflow import OverflowHook
from npu_bridge.debugging.profile import ProfileHook, parse_profiling_options, profile_steps
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.debugging.watched_steps import EvaluationSteps, PredictionSteps, TrainingSteps
from npu_bridge.distributed.cluster import runtime

DEFAULT_DUMP_FOLDER = "npu_dump"


def _dumping(config):
    dump = getattr(config, "dump_config", None)
    return dump is not None and dump.enable_dump


def _checking(config):
    dump = getattr(config, "dump_config", None)
    return ((dump is not None and dump.enable_dump_debug)
            or bool(getattr(config, "enable_exception_dump", 0)))


def single_steps(config):
    """The StepRanges of steps that must run as a Session.run of their own, or None."""
    if not (_dumping(config) or _checking(config)):
        return None
    dump = getattr(config, "dump_config", None)
    return StepRanges(dump.dump_step if dump is not None else None)


def _dump_hooks(config, model_dir, call, source):
    """Dump and overflow hooks of one call; ``source()`` makes its step counter."""
    steps = single_steps(config)
    if steps is None or not runtime.is_writer_rank():
        return []
    dump = config.dump_config
    path = (dump.dump_path if dump is not None and dump.dump_path
            else os.path.join(model_dir, DEFAULT_DUMP_FOLDER))
    if call != "train":
        path = os.path.join(path, call)
    hooks, what = [], []
    if _dumping(config):
        hooks.append(OpDumpHook(path, steps, dump.dump_mode, source()))
        what.append("op dumps (%s)" % dump.dump_mode)
    if _checking(config):
        hooks.append(OverflowHook(path, steps, source()))
        what.append("overflow checks")
    tf.compat.v1.logging.info(
        "DumpConfig: %s in %s() at %s into %s; under the device loop each of these steps "
        "runs as a single-step Session.run.", " and ".join(what), call, steps, path)
    return hooks


def training_hooks(config, model_dir, plan=None, loop=None):
    """SessionRunHooks for ``config``'s dump_config, enable_exception_dump and profiling_config.

    ``plan`` and ``loop``: the train() call's LoopPlan and the built loop's
    LoopTensors (None: one step per run).
    """
    hooks = _dump_hooks(config, model_dir, "train", lambda: TrainingSteps(loop))
    profiling = getattr(config, "profiling_config", None)
    if profiling is not None and profiling.enable_profiling and runtime.is_writer_rank():
        options = parse_profiling_options(profiling.profiling_options)
        run_size = plan.iterations if plan is not None and loop is not None else 1
        hooks.append(ProfileHook(options.get("output") or model_dir, profile_steps(options),
                                 run_size, loop))
    return hooks


def evaluation_hooks(config, model_dir):
    """Dump and overflow hooks for evaluate() (step k: the k-th evaluated batch)."""
    return _dump_hooks(config, model_dir, "evaluate", EvaluationSteps)


def prediction_hooks(config, model_dir):
    """Dump and overflow hooks for predict() (step k: the k-th predicted batch)."""
    return _dump_hooks(config, model_dir, "predict", PredictionSteps)
