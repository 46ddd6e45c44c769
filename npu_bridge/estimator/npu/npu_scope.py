"""Shim for the original path ``npu_bridge.estimator.npu.npu_scope`` (no-op scopes, see migration/no_effect.py)."""

from npu_bridge.migration.no_effect import SCOPE_NAMES as __all__  # noqa: F401
from npu_bridge.migration.no_effect import (  # noqa: F401
    disable_autofuse, keep_dtype_scope, limit_core_num_scope, npu_graph_slice_scope,
    npu_mem_type_scope, npu_optimizer_scope, npu_qos_label_scope, npu_recompute_scope,
    npu_stage_scope, npu_variable_scope, npu_weight_prefetch_scope, op_specified_engine_scope,
    subgraph_multi_dims_scope, without_npu_compile_scope)
