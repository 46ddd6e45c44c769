"""Which debugging hooks a run config asks for (none when dumping and profiling are off).

Called by NPUEstimator while it builds the graph of train(), evaluate() or
predict(). Dumps and overflow checks apply to all three; evaluate() and
predict() write under ``<dump_path>/evaluate/`` and ``<dump_path>/predict/``,
their step k being the call's k-th batch (from 0). Profiles cover training.
Only the writer rank (rank 0) dumps and profiles; every rank cuts its
device-loop runs alike at dumped steps, so collectives stay in step.
"""

import os

import tensorflow as tf

from npu_bridge.debugging.dump import OpDumpHook
from npu_bridge.debugging.overflow import OverflowHook
from npu_bridge.debugging.profile import ProfileHook, parse_profiling_options, profile_steps
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.debugging.watched_steps import EvaluationSteps, PredictionSteps, TrainingSteps
from npu_bridge.device_loop import loop_hooks
from npu_bridge.distributed import runtime

DEFAULT_DUMP_FOLDER = "npu_dump"

# call -> (folder under dump_path, how its steps are counted, whether its runs loop)
_CALLS = {
    "train": ("", TrainingSteps, True),
    "evaluate": ("evaluate", EvaluationSteps, True),
    "predict": ("predict", PredictionSteps, False),
}


def _dump_hooks(config, model_dir, call):
    folder, source, looped = _CALLS[call]
    dump = getattr(config, "dump_config", None)
    dumping = dump is not None and dump.enable_dump
    checking = ((dump is not None and dump.enable_dump_debug)
                or bool(getattr(config, "enable_exception_dump", 0)))
    if not (dumping or checking):
        return []
    steps = StepRanges(dump.dump_step if dump is not None else None)
    if looped:  # every rank cuts its loop runs here; the loop hooks read it
        tf.compat.v1.add_to_collection(loop_hooks.LOOP_SINGLE_STEPS,
                                       steps.text if steps.text is not None else "*")
    path = (dump.dump_path if dump is not None and dump.dump_path
            else os.path.join(model_dir, DEFAULT_DUMP_FOLDER))
    path = os.path.join(path, folder) if folder else path
    if not runtime.is_writer_rank():
        return []
    hooks, what = [], []
    if dumping:
        hooks.append(OpDumpHook(path, steps, dump.dump_mode, source()))
        what.append("op dumps (%s)" % dump.dump_mode)
    if checking:
        hooks.append(OverflowHook(path, steps, source()))
        what.append("overflow checks")
    tf.compat.v1.logging.info(
        "DumpConfig: %s in %s() at %s into %s; under the device loop each of these steps "
        "runs as a single-step Session.run.", " and ".join(what), call, steps, path)
    return hooks


def training_hooks(config, model_dir):
    """SessionRunHooks for ``config``'s dump_config, enable_exception_dump and profiling_config."""
    hooks = _dump_hooks(config, model_dir, "train")
    profiling = getattr(config, "profiling_config", None)
    if profiling is not None and profiling.enable_profiling and runtime.is_writer_rank():
        options = parse_profiling_options(profiling.profiling_options)
        hooks.append(ProfileHook(options.get("output") or model_dir, profile_steps(options)))
    return hooks


def evaluation_hooks(config, model_dir):
    """Dump and overflow hooks for evaluate() (step k: the k-th evaluated batch)."""
    return _dump_hooks(config, model_dir, "evaluate")


def prediction_hooks(config, model_dir):
    """Dump and overflow hooks for predict() (step k: the k-th predicted batch)."""
    return _dump_hooks(config, model_dir, "predict")
