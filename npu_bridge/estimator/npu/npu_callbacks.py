"""Shim for the original path ``npu_bridge.estimator.npu.npu_callbacks``."""

from npu_bridge.distributed.sessions.keras_callback import (  # noqa: F401
    NPUBroadcastGlobalVariablesCallback, npu_callbacks_append)

__all__ = ["NPUBroadcastGlobalVariablesCallback"]
