"""Shim for the original path ``npu_bridge.estimator.npu.util``."""

from npu_bridge.device_loop.session_loop import IterationPerLoop, set_iteration_per_loop
from npu_bridge.migration.hardware_options import set_graph_exec_config

__all__ = ["set_iteration_per_loop", "IterationPerLoop", "set_graph_exec_config"]
