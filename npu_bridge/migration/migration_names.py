"""The names Ascend's migration tool writes into scripts, gathered for ``npu_init``'s star import.

Each lives in the module of its concept; this list is the one place that says
which of them ``from npu_bridge.npu_init import *`` brings in (as the
original's npu_init does), besides those of ``session_helpers``.
"""

# pylint: disable=unused-import
from hccl.manage.api import (  # noqa: F401
    create_group, destroy_group, get_group_rank_from_world_rank, get_local_rank_id,
    get_local_rank_size, get_rank_id, get_rank_size, get_world_rank_from_group_rank)
from hccl.split.api import set_split_strategy_by_idx, set_split_strategy_by_size  # noqa: F401
from npu_bridge.distributed.keras_callback import (  # noqa: F401
    NPUBroadcastGlobalVariablesCallback, npu_callbacks_append)
from npu_bridge.distributed.optimizer_wrappers import (  # noqa: F401
    KerasDistributeOptimizer, npu_allreduce, npu_distributed_optimizer_wrapper,
    npu_keras_optimizer, npu_tf_optimizer)
from npu_bridge.estimator.npu import (  # noqa: F401
    keras_to_npu, npu_plugin, npu_rnn, npu_scope, npu_strategy)
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops  # noqa: F401
from npu_bridge.migration.hardware_options import MemoryConfig  # noqa: F401
from npu_bridge.migration.progress_hooks import SetIterationsVarHook, TellMeStepOrLossHook  # noqa: F401
from npu_bridge.migration.session_resources import (  # noqa: F401
    NpuEmptyHook, close_session, get_npu_local_rank_id, get_npu_local_rank_size,
    get_npu_rank_id, get_npu_rank_size, init_resource, npu_clear_session,
    set_keras_session_npu_config, shutdown_resource)
from npu_bridge.npu_cpu import npu_cpu_ops  # noqa: F401

__all__ = [
    "create_group", "destroy_group", "get_rank_size", "get_local_rank_size", "get_rank_id",
    "get_local_rank_id", "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
    "set_split_strategy_by_idx", "set_split_strategy_by_size",
    "NPUBroadcastGlobalVariablesCallback", "npu_callbacks_append",
    "KerasDistributeOptimizer", "npu_allreduce", "npu_distributed_optimizer_wrapper",
    "npu_keras_optimizer", "npu_tf_optimizer",
    "keras_to_npu", "npu_plugin", "npu_rnn", "npu_scope", "npu_strategy", "npu_unary_ops",
    "MemoryConfig", "SetIterationsVarHook", "TellMeStepOrLossHook",
    "NpuEmptyHook", "close_session", "get_npu_local_rank_id", "get_npu_local_rank_size",
    "get_npu_rank_id", "get_npu_rank_size", "init_resource", "npu_clear_session",
    "set_keras_session_npu_config", "shutdown_resource", "npu_cpu_ops",
]
