"""Names that only steer Ascend hardware: accepted, checked, and logged once as having no effect.

Scopes that tag ops for Ascend's graph compiler (``npu_scope``), gradient split
points for HCCL's fused all-reduce (``hccl.split.api``), placement and memory
hints: stock TensorFlow has no compiler pass that reads them, and results do
not depend on them.  Each is a real no-op here: a scope is a context manager
that adds nothing to the graph, a setter checks its arguments and returns.
The first use of each name logs one line saying so; later uses are silent.
"""

import contextlib
import logging
import numbers

from npu_bridge.common.log_once import has_logged, log_once

_log = logging.getLogger("npu_bridge")


def say_once(name, why):
    """Logs ``"<name> has no effect here: <why>"`` the first time ``name`` is used."""
    log_once("no_effect." + name, _log, logging.WARNING,
             "npu_bridge: %s has no effect here: %s", name, why)


def has_said(name):
    """True once ``say_once(name, ...)`` has logged (for tests and diagnostics)."""
    return has_logged("no_effect." + name)


def no_effect_scope(name, why):
    """A context manager factory for the Ascend compiler scope ``name``."""
    @contextlib.contextmanager
    def scope(*args, **kwargs):
        del args, kwargs
        say_once(name, why)
        yield
    scope.__name__ = scope.__qualname__ = name.rsplit(".", 1)[-1]
    scope.__doc__ = "Ascend scope %s: %s; a no-op here." % (name, why)
    return scope


_FUSION = ("gradients are all-reduced in one fused collective per dtype "
           "(NPUDistributedOptimizer); split points change no result")


def _check_group(group, function):
    if not isinstance(group, str) or not group:
        raise TypeError("%s group must be a group name (str); got %r" % (function, group))


def set_split_strategy_by_idx(idxList, group="hccl_world_group"):  # noqa: N803 (original name)
    """Gradient split points by gradient index (increasing positive ints)."""
    _check_group(group, "set_split_strategy_by_idx")
    if (not isinstance(idxList, (list, tuple)) or not idxList
            or not all(isinstance(i, int) and not isinstance(i, bool) and i > 0 for i in idxList)
            or list(idxList) != sorted(set(idxList))):
        raise ValueError("set_split_strategy_by_idx idxList must be a non-empty list of "
                         "increasing positive ints; got %r" % (idxList,))
    say_once("hccl.split.api.set_split_strategy_by_idx", _FUSION)


def set_split_strategy_by_size(dataSizeList, group="hccl_world_group"):  # noqa: N803
    """Gradient split points by percentage of the gradient bytes (summing to 100)."""
    _check_group(group, "set_split_strategy_by_size")
    if (not isinstance(dataSizeList, (list, tuple)) or not dataSizeList
            or not all(isinstance(s, numbers.Real) and s > 0 for s in dataSizeList)
            or abs(sum(dataSizeList) - 100) > 1e-6):
        raise ValueError("set_split_strategy_by_size dataSizeList must be positive "
                         "percentages summing to 100; got %r" % (dataSizeList,))
    say_once("hccl.split.api.set_split_strategy_by_size", _FUSION)


# ---- npu_scope: tags for Ascend's graph compiler ------------------------------------

_COMPILER = "it tags ops for Ascend's graph compiler, which stock TensorFlow does not have"

without_npu_compile_scope = no_effect_scope("npu_scope.without_npu_compile_scope", _COMPILER)
npu_variable_scope = no_effect_scope("npu_scope.npu_variable_scope", _COMPILER)
keep_dtype_scope = no_effect_scope(
    "npu_scope.keep_dtype_scope",
    "it keeps Ascend's precision_mode from lowering these ops; TensorFlow's mixed "
    "precision here keeps its own allow/deny lists")
npu_stage_scope = no_effect_scope("npu_scope.npu_stage_scope", _COMPILER)
npu_mem_type_scope = no_effect_scope("npu_scope.npu_mem_type_scope", _COMPILER)
npu_weight_prefetch_scope = no_effect_scope("npu_scope.npu_weight_prefetch_scope", _COMPILER)
op_specified_engine_scope = no_effect_scope("npu_scope.op_specified_engine_scope", _COMPILER)
npu_qos_label_scope = no_effect_scope("npu_scope.npu_qos_label_scope", _COMPILER)
subgraph_multi_dims_scope = no_effect_scope("npu_scope.subgraph_multi_dims_scope", _COMPILER)
npu_optimizer_scope = no_effect_scope("npu_scope.npu_optimizer_scope", _COMPILER)
npu_recompute_scope = no_effect_scope("npu_scope.npu_recompute_scope", _COMPILER)
npu_graph_slice_scope = no_effect_scope("npu_scope.npu_graph_slice_scope", _COMPILER)
disable_autofuse = no_effect_scope("npu_scope.disable_autofuse", _COMPILER)
limit_core_num_scope = no_effect_scope("npu_scope.limit_core_num_scope", _COMPILER)

SCOPE_NAMES = ["without_npu_compile_scope", "npu_variable_scope", "keep_dtype_scope",
               "npu_stage_scope", "npu_mem_type_scope", "npu_weight_prefetch_scope",
               "op_specified_engine_scope", "npu_qos_label_scope",
               "subgraph_multi_dims_scope", "npu_optimizer_scope", "npu_recompute_scope",
               "npu_graph_slice_scope", "disable_autofuse", "limit_core_num_scope"]
