"""Shim for the original path ``npu_bridge.estimator.npu.npu_config``."""

from npu_bridge.core.config import DumpConfig, DynamicInputConfig, NPURunConfig, ProfilingConfig
from npu_bridge.migration.hardware_options import MemoryConfig

__all__ = ["NPURunConfig", "ProfilingConfig", "DumpConfig", "DynamicInputConfig", "MemoryConfig"]
