"""Shim for the original path ``npu_bridge.estimator.npu.util``."""

from npu_bridge.device_loop.session_loop import IterationPerLoop, set_iteration_per_loop

__all__ = ["set_iteration_per_loop", "IterationPerLoop"]
