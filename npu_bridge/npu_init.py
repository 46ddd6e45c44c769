"""``from npu_bridge.npu_init import *``: every name migrated scripts expect.

Like the original, this star-exports TensorFlow as ``tf`` together with the
adapter's estimator, config, optimizer, hook and collective names, except
that a ``tf`` the importing module already has is kept, and in the TF1 run
mode ``tf`` is the TF1 API (see ``npu_bridge.tf1.star_export``).
"""

# Modules the original's star import gave too, which migrated scripts use without
# importing them (``config_pb2.ConfigProto()``, ``atexit.register(...)``).
import atexit  # noqa: F401
import os  # noqa: F401

from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2  # noqa: F401
from tensorflow.python.client import session  # noqa: F401

from npu_bridge.tf1.star_export import module_getattr as _module_getattr
__getattr__ = _module_getattr(globals())  # gives ``tf`` and ``__all__``

from npu_bridge.estimator.npu.npu_config import *  # noqa: F401,F403
from npu_bridge.estimator.npu.npu_estimator import *  # noqa: F401,F403
from npu_bridge.estimator.npu.npu_hook import *  # noqa: F401,F403
from npu_bridge.estimator.npu.npu_loss_scale_manager import *  # noqa: F401,F403
from npu_bridge.estimator.npu.npu_loss_scale_optimizer import *  # noqa: F401,F403
from npu_bridge.estimator.npu.npu_optimizer import *  # noqa: F401,F403
from npu_bridge.estimator.npu import util  # noqa: F401
from npu_bridge.estimator import npu_ops  # noqa: F401
from npu_bridge.hccl import hccl_ops  # noqa: F401
from npu_bridge.migration.session_helpers import *  # noqa: F401,F403
from npu_bridge.migration.migration_names import *  # noqa: F401,F403
from npu_bridge.distributed.cluster_sources import export_rank_env as _export_rank_env; _export_rank_env()  # noqa: E402,E702
from npu_bridge.distributed.session_target import install as _install_session_target; _install_session_target()  # noqa: E402,E702
