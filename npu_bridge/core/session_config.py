"""What the sessions of an NPURunConfig start with: its ConfigProto, and the NpuOptimizer entry.

Migrated scripts mark their session configs for Ascend with a custom Grappler
optimizer named "NpuOptimizer" whose parameter_map carries Ascend options
(``npu_config_proto``). Stock TensorFlow skips a custom optimizer it has no
registration for (a session with it runs normally), so the entry is kept as
the original keeps it; ``read_npu_optimizer_options`` gives the options in it
that mean something here (iterations_per_loop, precision_mode) to the run
config.

``run_session_config`` assembles the ConfigProto a config's sessions use from
the options that steer it: precision_mode (TensorFlow's automatic mixed
precision, ``mixed_precision.precision_mode``) and op dumps (Grappler's
op-rewriting passes off, ``debugging.capture.keep_every_op``). For ranks,
NPUEstimator adds the collective settings and the rank's server on top
(``distributed.estimator_support.rank_run_config``).

``estimator_session_config`` is what an NPUEstimator's sessions finally run
with: the Estimator's own default when none is given (with ranks too), and
Grappler passes that cannot change the program on this machine left out, since
each new combination of fetches pays for every pass over the whole graph
(docs/device_loop.md, "Each new combination of fetches").
"""

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.debugging.capture import keep_every_op
from npu_bridge.distributed.cluster.devices import physical_gpu_count
from npu_bridge.mixed_precision.precision_mode import apply_precision_mode
from npu_bridge.tf_private.estimator import default_session_config

NPU_OPTIMIZER_NAME = "NpuOptimizer"


def _npu_optimizer(config_proto):
    """The NpuOptimizer entry of ``config_proto``, or None."""
    for custom in config_proto.graph_options.rewrite_options.custom_optimizers:
        if custom.name == NPU_OPTIMIZER_NAME:
            return custom
    return None


def mark_npu_optimizer(config_proto):
    """Adds the NpuOptimizer entry (and memory optimization off, as the original) once."""
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


def run_session_config(session_config, precision_mode=None, keep_ops=False):
    """The ConfigProto for a run config: ``session_config`` (None: none given) with
    ``precision_mode`` applied and, with ``keep_ops`` (op dumps), every op kept.

    Returns ``session_config`` itself when neither applies.
    """
    if keep_ops:
        # Dumps name the graph's own ops: no Grappler fusing or folding.
        session_config = keep_every_op(
            session_config or tf.compat.v1.ConfigProto(allow_soft_placement=True))
    if precision_mode is not None:
        session_config = apply_precision_mode(
            session_config or tf.compat.v1.ConfigProto(allow_soft_placement=True),
            precision_mode)
    return session_config


def estimator_session_config(session_config):
    """A copy of ``session_config`` for an NPUEstimator's sessions (None: the
    stock Estimator's default, allow_soft_placement and one Grappler round).

    Only settings left at their defaults change:
    * one round of Grappler's passes, as the Estimator's default asks: a
      second round over a lowered device loop costs as much as the first, and
      the program it leaves runs no faster (bench/bench_startup.py);
    * no TFG pass pipeline: it re-infers shapes into attributes that nothing
      after it reads;
    * where TensorFlow sees no GPU, no layout pass and no memory heuristics:
      the layout pass converts layouts for GPUs only and swapping moves GPU
      tensors to the host, yet both first analyse the whole graph (with a
      Dataset's data embedded in it, every byte of it, on each session start).
      The original adapter's ``npu_config_proto`` turns memory optimization
      off too; a config that sets it keeps its value.
    """
    config = config_pb2.ConfigProto()
    config.CopyFrom(default_session_config() if session_config is None else session_config)
    rewrite = config.graph_options.rewrite_options
    if rewrite.meta_optimizer_iterations == RewriterConfig.DEFAULT_NUM_ITERS:
        rewrite.meta_optimizer_iterations = RewriterConfig.ONE
    rewrite.disable_tfg_optimizer = True
    if not physical_gpu_count():
        if rewrite.layout_optimizer == RewriterConfig.DEFAULT:
            rewrite.layout_optimizer = RewriterConfig.OFF
        if rewrite.memory_optimization == RewriterConfig.DEFAULT_MEM_OPT:
            rewrite.memory_optimization = RewriterConfig.NO_MEM_OPT
    return config
