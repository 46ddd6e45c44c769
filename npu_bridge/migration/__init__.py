"""Helpers that Ascend's migration tool writes into scripts, and npu_ops.

Session and config helpers (``npu_config_proto``, ``npu_run_config_init`` ...),
the output and checkpoint hooks, and the ``npu_ops`` functions. The original
import paths (``npu_bridge.npu_init``, ``npu_bridge.estimator.npu_ops`` ...)
re-export them.
"""
