"""Shim for the original path ``npu_bridge.estimator.npu_unary_ops``.

Scripts call ``npu_unary_ops.gelu(x)``: ``npu_unary_ops`` is the generated-op
module (see ``npu_bridge.migration.kernels``).
"""

from npu_bridge.migration.kernels import GEN_OPS as npu_unary_ops  # noqa: F401
