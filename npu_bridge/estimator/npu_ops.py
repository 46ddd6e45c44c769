"""Shim for the original path ``npu_bridge.estimator.npu_ops``."""

from npu_bridge.migration.ops import *  # noqa: F401,F403
from npu_bridge.migration.ops import __all__  # noqa: F401
