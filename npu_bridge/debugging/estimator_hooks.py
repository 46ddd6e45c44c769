"""Which debugging hooks a run config asks for (none when dumping and profiling are off).

Called by NPUEstimator while it builds the training graph. Only the writer
rank (rank 0) dumps and profiles; every rank cuts its device-loop runs alike
at dumped steps, so collectives stay in step.
"""

import os

import tensorflow as tf

from npu_bridge.debugging.dump import OpDumpHook
from npu_bridge.debugging.overflow import OverflowHook
from npu_bridge.debugging.profile import ProfileHook, parse_profiling_options, profile_steps
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.device_loop import loop_hooks
from npu_bridge.distributed import runtime

DEFAULT_DUMP_FOLDER = "npu_dump"


def training_hooks(config, model_dir):
    """SessionRunHooks for ``config``'s dump_config, enable_exception_dump and profiling_config."""
    hooks = []
    dump = getattr(config, "dump_config", None)
    dumping = dump is not None and dump.enable_dump
    checking = ((dump is not None and dump.enable_dump_debug)
                or bool(getattr(config, "enable_exception_dump", 0)))
    if dumping or checking:
        steps = StepRanges(dump.dump_step if dump is not None else None)
        # Every rank cuts its loop runs here; the loop hooks read it.
        tf.compat.v1.add_to_collection(loop_hooks.LOOP_SINGLE_STEPS,
                                       steps.text if steps.text is not None else "*")
        path = (dump.dump_path if dump is not None and dump.dump_path
                else os.path.join(model_dir, DEFAULT_DUMP_FOLDER))
        if runtime.is_writer_rank():
            what = []
            if dumping:
                hooks.append(OpDumpHook(path, steps, dump.dump_mode))
                what.append("op dumps (%s)" % dump.dump_mode)
            if checking:
                hooks.append(OverflowHook(path, steps))
                what.append("overflow checks")
            tf.compat.v1.logging.info(
                "DumpConfig: %s at %s into %s; under the device loop each of these steps "
                "runs as a single-step Session.run.", " and ".join(what), steps, path)
    profiling = getattr(config, "profiling_config", None)
    if profiling is not None and profiling.enable_profiling and runtime.is_writer_rank():
        options = parse_profiling_options(profiling.profiling_options)
        hooks.append(ProfileHook(options.get("output") or model_dir, profile_steps(options)))
    return hooks
