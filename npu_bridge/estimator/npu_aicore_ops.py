"""Original path ``npu_bridge.estimator.npu_aicore_ops``: re-exports ``migration.kernels``.

Other kernel names come from the generated-op module and raise
NotImplementedError naming them.
"""

from npu_bridge.migration.kernels import (  # noqa: F401
    GEN_OPS as npu_aicore_ops, dropout_v3, fast_gelu, fast_gelu_v2, layer_norm)
from npu_bridge.migration.kernels import generated_op as __getattr__  # noqa: F401
