"""Helpers that Ascend's migration tool writes into scripts, and npu_ops.

Session and config helpers (``npu_config_proto``, ``npu_run_config_init`` ...),
session resources (``init_resource`` ...), the output, checkpoint and
progress hooks, the ``npu_ops`` functions and fused kernels (``kernels``),
``DynamicRNN`` (``rnn``), the names that only steer Ascend hardware
(``no_effect``, ``hardware_options``), and what importing ``npu_init`` does
to the process (``process_setup``). docs/migration_names.md describes all of
them. The original import paths (``npu_bridge.npu_init``,
``npu_bridge.estimator.npu_ops`` ...) re-export them.
"""
