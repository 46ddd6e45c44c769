"""Rank sessions under bfloat16 mixed precision: convolutions stay unfused.

Why two ranks failed where one process passed: a rank's session runs on its
server, so its graph goes through TensorFlow's distributed master and worker,
not the in-process session.  The master runs Grappler: the oneDNN bfloat16
mixed precision pass turns Conv2D into bfloat16, then the remapper fuses
Conv2D + BiasAdd (+ Relu) into ``_FusedConv2D`` with ``T=bfloat16``.  That
op's definition does not list bfloat16; in one process nobody checks, and
oneDNN's layout pass later replaces it by its own fused kernel, which has a
bfloat16 form.  The worker, however, validates every node it is sent against
its op definition before that pass runs, and rejects the graph ("Value for
attr 'T' of bfloat16 is not in the list of allowed values").  A one-rank
session on a server fails the same way: it is the runtime, not the
collectives.

The remapper has one switch for all its fusions, so rank sessions with the
bfloat16 pass on run with it off: convolutions, bias adds and activations stay
bfloat16 as separate oneDNN kernels.  The alternative, keeping convolutions in
float32 so that they may be fused, loses most of the gain
(``bench/bench_precision_fusions.py``: on a conv + batch norm net, bfloat16
unfused through a server ran at 0.47-0.50x the float32 step time, bfloat16
fused in one process 0.50-0.54x, float32 convolutions fused 0.77-0.88x).  If a
later TensorFlow lists bfloat16 for ``_FusedConv2D`` this rule turns itself
off.  Logged once per process.
"""

import logging

_log = logging.getLogger(__name__)
_logged = []

# The fused op Grappler's remapper makes from bfloat16 convolutions under oneDNN.
_FUSED_CONV = "_FusedConv2D"


def _fused_conv_takes_bf16():
    import tensorflow as tf
    from npu_bridge.tf_private.platform import op_def
    definition = op_def(_FUSED_CONV)
    if definition is None:
        return True  # nothing would be fused into it
    allowed = [a.allowed_values.list.type for a in definition.attr if a.name == "T"]
    return not allowed or tf.bfloat16.as_datatype_enum in allowed[0]


def _bf16_pass_on(rewrite):
    from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
    return RewriterConfig.ON in (rewrite.auto_mixed_precision_onednn_bfloat16,
                                 rewrite.auto_mixed_precision_mkl)


def keep_bf16_convolutions_unfused(config):
    """Turns the remapper off in ``config`` (in place) when bfloat16 fusions would be rejected.

    For sessions on a rank's server only; returns ``config``.
    """
    from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
    rewrite = config.graph_options.rewrite_options
    if not _bf16_pass_on(rewrite) or _fused_conv_takes_bf16():
        return config
    if rewrite.remapping != RewriterConfig.OFF:
        rewrite.remapping = RewriterConfig.OFF
        if not _logged:
            _logged.append(True)
            _log.warning(
                "npu_bridge: bfloat16 mixed precision on ranks: Grappler's op fusions "
                "(remapper) are off in rank sessions, because TensorFlow's distributed "
                "runtime rejects the bfloat16 %s they would make; convolutions still run "
                "in bfloat16, unfused (docs/mixed_precision.md).", _FUSED_CONV)
    return config
