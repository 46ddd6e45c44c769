"""``from npu_bridge.npu_init import *``: every name migrated scripts expect.

Like the original, this star-exports TensorFlow as ``tf`` together with the
adapter's estimator, config, optimizer, hook and collective names and the
helpers Ascend's migration tool writes into scripts, except that a ``tf`` the
importing module already has is kept, and in the TF1 run mode ``tf`` is the
TF1 API (see ``npu_bridge.tf1.star_export``). Each name lives in the module of
its concept; this module only re-exports them.

Importing it calls ``set_up_ranks()`` (``npu_bridge.migration.process_setup``),
as importing the original sets up its devices: when the process is one rank
of several, RANK_SIZE/RANK_ID are exported from the cluster and plain
Sessions with the default target run on the rank's server. With one process
nothing changes.
"""

# Modules the original's star import gave too, which migrated scripts use without
# importing them (``config_pb2.ConfigProto()``, ``atexit.register(...)``).
import atexit  # noqa: F401
import os  # noqa: F401

from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2  # noqa: F401
from npu_bridge.tf_private.session import client_session as session  # noqa: F401

from npu_bridge.tf1.star_export import module_getattr as _module_getattr
__getattr__ = _module_getattr(globals())  # gives ``tf`` and ``__all__``

# pylint: disable=unused-import,wrong-import-position
from npu_bridge.estimator.npu.npu_config import *  # noqa: F401,F403,E402
from npu_bridge.estimator.npu.npu_estimator import *  # noqa: F401,F403,E402
from npu_bridge.estimator.npu.npu_hook import *  # noqa: F401,F403,E402
from npu_bridge.estimator.npu.npu_loss_scale_manager import *  # noqa: F401,F403,E402
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import *  # noqa: F401,F403,E402
from npu_bridge.estimator.npu.npu_optimizer import *  # noqa: F401,F403,E402
from npu_bridge.estimator.npu import util  # noqa: F401,E402
from npu_bridge.estimator import npu_ops  # noqa: F401,E402
from npu_bridge.hccl import hccl_ops  # noqa: F401,E402
from npu_bridge.migration.session_helpers import *  # noqa: F401,F403,E402

# The other names the migration tool writes into scripts (docs/migration_names.md).
from hccl.manage.api import (  # noqa: F401,E402
    create_group, destroy_group, get_group_rank_from_world_rank, get_local_rank_id,
    get_local_rank_size, get_rank_id, get_rank_size, get_world_rank_from_group_rank)
from hccl.split.api import set_split_strategy_by_idx, set_split_strategy_by_size  # noqa: F401,E402
from npu_bridge.distributed.sessions.keras_callback import (  # noqa: F401,E402
    NPUBroadcastGlobalVariablesCallback, npu_callbacks_append)
from npu_bridge.distributed.optimizers.optimizer_wrappers import (  # noqa: F401,E402
    KerasDistributeOptimizer, npu_allreduce, npu_distributed_optimizer_wrapper,
    npu_keras_optimizer, npu_tf_optimizer)
from npu_bridge.estimator.npu import (  # noqa: F401,E402
    keras_to_npu, npu_plugin, npu_rnn, npu_scope, npu_strategy)
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops  # noqa: F401,E402
from npu_bridge.migration.hardware_options import MemoryConfig  # noqa: F401,E402
from npu_bridge.migration.progress_hooks import SetIterationsVarHook, TellMeStepOrLossHook  # noqa: F401,E402
from npu_bridge.migration.session_resources import (  # noqa: F401,E402
    NpuEmptyHook, close_session, get_npu_local_rank_id, get_npu_local_rank_size,
    get_npu_rank_id, get_npu_rank_size, init_resource, npu_clear_session,
    set_keras_session_npu_config, shutdown_resource)
from npu_bridge.npu_cpu import npu_cpu_ops  # noqa: F401,E402

from npu_bridge.migration.process_setup import set_up_ranks as _set_up_ranks  # noqa: E402
_set_up_ranks()
