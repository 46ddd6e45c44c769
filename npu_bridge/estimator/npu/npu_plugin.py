"""Shim for the original path ``npu_bridge.estimator.npu.npu_plugin`` (device open/close: no-ops)."""

from npu_bridge.migration.hardware_options import (  # noqa: F401
    npu_close, npu_global_init, npu_global_shutdown, npu_resource_init, npu_resource_shutdown,
    set_device_sat_mode)

__all__ = ["npu_global_init", "npu_global_shutdown", "npu_resource_init",
           "npu_resource_shutdown", "npu_close", "set_device_sat_mode"]
