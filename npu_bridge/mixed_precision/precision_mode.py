"""precision_mode -> TensorFlow's own automatic mixed precision graph rewrite.

On Ascend, precision_mode tells the graph compiler which ops may run in
float16.  The closest stock-TensorFlow mechanism is Grappler's auto mixed
precision pass, which recasts numerically safe ops (matmul, conv ...) to a
16-bit type and keeps sensitive ones (softmax, reductions ...) in float32:

* GPU: ``rewrite_options.auto_mixed_precision`` (float16, Tensor Cores).
* CPU with bfloat16 units (AVX512-BF16 or AMX-BF16 in /proc/cpuinfo, and a
  oneDNN build): ``auto_mixed_precision_onednn_bfloat16``.
* Anything else has no fast 16-bit math: float32 is kept (a 16-bit rewrite
  would only add casts), and we log that once.

allow_mix_precision, allow_fp32_to_fp16 and force_fp16 all map to that pass
(TensorFlow has no "every op in float16" mode; its lists are the safe
subset).  must_keep_origin_dtype turns every mixed precision pass off; None
leaves the session config as the user wrote it.
"""

import logging

import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.common.log_once import log_once
from npu_bridge.tf_private.platform import onednn_enabled

PRECISION_MODES = ("allow_fp32_to_fp16", "force_fp16", "must_keep_origin_dtype",
                   "allow_mix_precision")
_MIXED_MODES = ("allow_fp32_to_fp16", "force_fp16", "allow_mix_precision")
_AMP_FIELDS = ("auto_mixed_precision", "auto_mixed_precision_onednn_bfloat16",
               "auto_mixed_precision_mkl", "auto_mixed_precision_cpu")
HARDWARE = ("gpu", "cpu_bf16", "cpu")

_log = logging.getLogger(__name__)


def _log_once(message):
    log_once(message, _log, logging.INFO, "%s", message)


def cpu_has_bf16(cpuinfo_path="/proc/cpuinfo"):
    """True if the CPU advertises bfloat16 arithmetic (AVX512-BF16 or AMX-BF16)."""
    try:
        with open(cpuinfo_path) as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


def detect_hardware():
    """'gpu', 'cpu_bf16' or 'cpu': where 16-bit math would actually be fast."""
    if tf.config.list_physical_devices("GPU"):
        return "gpu"
    if cpu_has_bf16() and onednn_enabled():
        return "cpu_bf16"
    return "cpu"


def apply_precision_mode(session_config, precision_mode, hardware=None):
    """A copy of ``session_config`` with ``precision_mode`` applied.

    ``session_config`` may be None (a fresh ConfigProto).  ``hardware``
    overrides detection ('gpu', 'cpu_bf16' or 'cpu'); it exists for tests
    and for forcing a choice.
    """
    if session_config is None:
        session_config = tf.compat.v1.ConfigProto()
    if not isinstance(session_config, tf.compat.v1.ConfigProto):
        raise TypeError("session_config must be a tf.compat.v1.ConfigProto or None; "
                        "got %s." % type(session_config).__name__)
    if precision_mode is not None and precision_mode not in PRECISION_MODES:
        raise ValueError("precision_mode must be None or one of %s; got %r."
                         % (", ".join(PRECISION_MODES), precision_mode))
    if hardware is not None and hardware not in HARDWARE:
        raise ValueError("hardware must be None or one of %s; got %r."
                         % (", ".join(HARDWARE), hardware))
    config = tf.compat.v1.ConfigProto()
    config.CopyFrom(session_config)
    rewrite = config.graph_options.rewrite_options
    if precision_mode is None:
        return config
    if precision_mode == "must_keep_origin_dtype":
        for field in _AMP_FIELDS:
            setattr(rewrite, field, RewriterConfig.OFF)
        return config
    hardware = hardware or detect_hardware()
    if hardware == "gpu":
        rewrite.auto_mixed_precision = RewriterConfig.ON
    elif hardware == "cpu_bf16":
        rewrite.auto_mixed_precision_onednn_bfloat16 = RewriterConfig.ON
    else:
        _log_once("precision_mode=%r: no GPU and no bfloat16-capable CPU here, "
                  "so the graph stays float32." % precision_mode)
    return config
