"""Shim for the original path ``npu_bridge.estimator.npu.npu_hook``."""

from npu_bridge.distributed.sessions.broadcast_hook import (  # noqa: F401
    NPUBroadcastGlobalVariablesHook, npu_hooks_append)

from npu_bridge.migration.output_hooks import NPUCheckpointSaverHook, NPUOutputTensorHook  # noqa: F401
from npu_bridge.migration.progress_hooks import SetIterationsVarHook, TellMeStepOrLossHook  # noqa: F401
