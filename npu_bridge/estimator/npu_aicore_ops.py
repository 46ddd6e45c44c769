"""Shim for the original path ``npu_bridge.estimator.npu_aicore_ops``."""

from npu_bridge.migration.kernels import (  # noqa: F401
    GEN_OPS as npu_aicore_ops, dropout_v3, fast_gelu, fast_gelu_v2, layer_norm)


def __getattr__(name):
    return getattr(npu_aicore_ops, name)  # names of other kernels raise NotImplementedError
