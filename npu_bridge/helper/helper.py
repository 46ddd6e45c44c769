"""Shim for the original path ``npu_bridge.helper.helper``."""

from npu_bridge.migration.kernels import GEN_OPS as _GEN_OPS


def get_gen_ops():
    """The generated-op module (``npu_bridge.migration.kernels.GEN_OPS``)."""
    return _GEN_OPS
