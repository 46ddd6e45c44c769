"""``from npu_bridge.npu_init import *``: every name migrated scripts expect.

Like the original, this star-exports TensorFlow as ``tf`` together with the
adapter's estimator, config, optimizer, hook and collective names.
"""

import os  # noqa: F401  (migrated scripts rely on it arriving with the star import)

import tensorflow as tf  # noqa: F401

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
from npu_bridge.distributed.session_target import install as _install_session_target; _install_session_target()  # noqa: E402,E702
