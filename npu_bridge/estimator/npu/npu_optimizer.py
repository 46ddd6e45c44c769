"""Shim for the original path ``npu_bridge.estimator.npu.npu_optimizer``."""

from npu_bridge.mixed_precision.npu_optimizer import NPUOptimizer  # noqa: F401
from npu_bridge.distributed.optimizers.optimizer import NPUDistributedOptimizer  # noqa: F401
from npu_bridge.distributed.optimizers.optimizer_wrappers import (  # noqa: F401
    KerasDistributeOptimizer, allreduce, npu_allreduce, npu_distributed_optimizer_wrapper)
