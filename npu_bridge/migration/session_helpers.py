"""The npu_init config helpers that migrated scripts call, on stock TensorFlow.

Migration tools rewrite ``tf.Session(config=c)`` into
``tf.Session(config=npu_config_proto(c))`` and add a custom Grappler
optimizer named "NpuOptimizer" whose parameter_map carries Ascend options.
Stock TensorFlow skips a custom optimizer it has no registration for
(checked: a session with it runs normally), so the entry is kept as the
original keeps it; the options in it that mean something here
(iterations_per_loop, precision_mode) are read by read_npu_optimizer_options.
"""

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.mixed_precision.precision_mode import apply_precision_mode

NPU_OPTIMIZER_NAME = "NpuOptimizer"

__all__ = ["npu_config_proto", "npu_session_config_init", "npu_run_config_init",
           "npu_graph_options", "npu_optimizer_options", "RewriterConfig",
           "read_npu_optimizer_options", "apply_npu_optimizer_options"]


def _npu_optimizer(config_proto):
    """The NpuOptimizer entry of ``config_proto``, or None."""
    for custom in config_proto.graph_options.rewrite_options.custom_optimizers:
        if custom.name == NPU_OPTIMIZER_NAME:
            return custom
    return None


def _ensure_npu_optimizer(config_proto):
    rewrite = config_proto.graph_options.rewrite_options
    if _npu_optimizer(config_proto) is None:
        rewrite.custom_optimizers.add().name = NPU_OPTIMIZER_NAME
        rewrite.memory_optimization = RewriterConfig.OFF


def _attr_to_python(attr):
    kind = attr.WhichOneof("value")
    if kind == "s":
        return attr.s.decode("utf-8", "replace")
    if kind in ("i", "f", "b"):
        return getattr(attr, kind)
    if kind == "list":
        lst = attr.list
        for field in ("s", "i", "f", "b"):
            values = list(getattr(lst, field))
            if values:
                return [v.decode("utf-8", "replace") if field == "s" else v
                        for v in values]
        return []
    return None if kind is None else getattr(attr, kind)


def read_npu_optimizer_options(config_proto):
    """The NpuOptimizer parameter_map as a plain dict (empty if there is none).

    e.g. ``{'iterations_per_loop': 10, 'precision_mode': 'allow_mix_precision'}``.
    """
    if config_proto is None:
        return {}
    if not isinstance(config_proto, config_pb2.ConfigProto):
        raise TypeError("config_proto must be a tf.compat.v1.ConfigProto or None; "
                        "got %s." % type(config_proto).__name__)
    custom = _npu_optimizer(config_proto)
    if custom is None:
        return {}
    return {key: _attr_to_python(custom.parameter_map[key])
            for key in sorted(custom.parameter_map)}


def apply_npu_optimizer_options(config_proto):
    """A copy of ``config_proto`` with its NpuOptimizer precision_mode applied."""
    mode = read_npu_optimizer_options(config_proto).get("precision_mode")
    return apply_precision_mode(config_proto, mode or None)


def npu_config_proto(config_proto=None):
    """Marks a session config for the NPU (as the original) and honours its precision_mode.

    Anything that is not a ConfigProto is replaced by a fresh one, like the
    original.  The argument itself is updated too, since scripts sometimes
    ignore the return value.
    """
    if not isinstance(config_proto, config_pb2.ConfigProto):
        config_proto = config_pb2.ConfigProto()
    _ensure_npu_optimizer(config_proto)
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
    so only rank 0 writes the model_dir.
    """
    from npu_bridge.distributed.estimator_support import private_model_dir
    if not isinstance(run_config, tf.estimator.RunConfig):
        run_config = tf.estimator.RunConfig()
    # RunConfig has no setter; the original writes the attribute the same way.
    run_config.__dict__["_session_config"] = npu_config_proto(run_config.session_config)
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
