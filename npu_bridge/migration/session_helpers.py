"""The npu_init config helpers that migrated scripts call, on stock TensorFlow.

Migration tools rewrite ``tf.Session(config=c)`` into
``tf.Session(config=npu_config_proto(c))``, which marks the config with the
"NpuOptimizer" entry (``core.session_config``: what it is and which of its
options mean something here).
"""

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.core.config import NPURunConfig
from npu_bridge.core.session_config import (  # noqa: F401  (read_npu_optimizer_options: exported)
    NPU_OPTIMIZER_NAME, apply_npu_optimizer_options, mark_npu_optimizer,
    read_npu_optimizer_options)
from npu_bridge.distributed.sessions.estimator_support import private_model_dir
from npu_bridge.tf_private.estimator import set_session_config

__all__ = ["npu_config_proto", "npu_session_config_init", "npu_run_config_init",
           "npu_graph_options", "npu_optimizer_options", "RewriterConfig",
           "read_npu_optimizer_options", "apply_npu_optimizer_options"]


def npu_config_proto(config_proto=None):
    """Marks a session config for the NPU (as the original) and honours its precision_mode.

    Anything that is not a ConfigProto is replaced by a fresh one, like the
    original.  The argument itself is updated too, since scripts sometimes
    ignore the return value.
    """
    if not isinstance(config_proto, config_pb2.ConfigProto):
        config_proto = config_pb2.ConfigProto()
    mark_npu_optimizer(config_proto)
    config_proto.allow_soft_placement = True
    config_proto.log_device_placement = False
    config_proto.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    config_proto.graph_options.optimizer_options.global_jit_level = (
        config_pb2.OptimizerOptions.OFF)
    config_proto.CopyFrom(apply_npu_optimizer_options(config_proto))
    return config_proto


def npu_session_config_init(session_config=None):
    """The older spelling of npu_config_proto used by migrated Estimator scripts."""
    return npu_config_proto(session_config)


def npu_run_config_init(run_config=None):
    """A RunConfig (a fresh one unless given) whose session_config is NPU-marked.

    Under ranks, a plain RunConfig on ranks other than 0 comes back as a copy
    writing to a directory of its own (``estimator_support.private_model_dir``),
    so only rank 0 writes the model_dir; an NPURunConfig is left alone
    (NPUEstimator already saves on rank 0 only).
    """
    if not isinstance(run_config, tf.estimator.RunConfig):
        run_config = tf.estimator.RunConfig()
    # RunConfig has no setter; the original writes the attribute the same way.
    set_session_config(run_config, npu_config_proto(run_config.session_config))
    if isinstance(run_config, NPURunConfig):
        return run_config
    return private_model_dir(run_config)


def npu_graph_options(graph_options=None):
    """GraphOptions with XLA auto-jit off (the NPU compiles the whole graph itself)."""
    if not isinstance(graph_options, config_pb2.GraphOptions):
        graph_options = config_pb2.GraphOptions()
    graph_options.optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return graph_options


def npu_optimizer_options(optimizer_options=None):
    """OptimizerOptions with XLA auto-jit off."""
    if not isinstance(optimizer_options, config_pb2.OptimizerOptions):
        optimizer_options = config_pb2.OptimizerOptions()
    optimizer_options.global_jit_level = config_pb2.OptimizerOptions.OFF
    return optimizer_options
