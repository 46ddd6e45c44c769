"""npu_ops names migrated scripts import, built from stock TensorFlow ops.

Ops that only exist as Ascend kernels with no faithful TF equivalent raise
NotImplementedError naming the op, rather than silently doing something else.
"""

import numbers

import tensorflow as tf

from npu_bridge.migration import kernels
from npu_bridge.migration.kernels import (  # noqa: F401
    adam_apply_one_assign, adam_apply_one_with_decay_assign, basic_lstm_cell, dropout_v3,
    fast_gelu, gelu, lamb_apply_optimizer_assign, lamb_apply_weight_assign)

gen_npu_ops = kernels.GEN_OPS


def NPUInit(name=None):
    """Ascend device initialisation; nothing to initialise here, so a no-op."""
    return tf.no_op(name=name or "NPUInit")


def NPUShutdown(name=None):
    """Ascend device shutdown; a no-op here."""
    return tf.no_op(name=name or "NPUShutdown")


def initialize_system(name=None):
    """Same as NPUInit (scripts run it once before training)."""
    return NPUInit(name)


def shutdown_system(name=None):
    """Same as NPUShutdown."""
    return NPUShutdown(name)


def dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Ascend's dropout: note ``keep_prob`` (kept fraction), not tf.nn's ``rate``.

    Kept elements are scaled by 1/keep_prob, so the expectation is unchanged.
    """
    with tf.name_scope(name or "npu_dropout"):
        x = tf.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("dropout x must be a floating point tensor; got a %s "
                             "tensor." % x.dtype.name)
        if isinstance(keep_prob, numbers.Real):
            if isinstance(keep_prob, bool) or not 0 < keep_prob <= 1:
                raise ValueError("dropout keep_prob must be in (0, 1]; got %r."
                                 % (keep_prob,))
            if keep_prob == 1:
                return x
        keep_prob = tf.convert_to_tensor(keep_prob, dtype=x.dtype, name="keep_prob")
        return tf.nn.dropout(x, rate=1 - keep_prob, noise_shape=noise_shape,
                             seed=seed)


def _lars_coefficient(weight, grad, weight_decay, hyperpara, epsilon):
    w_norm = tf.norm(weight)
    g_norm = tf.norm(grad)
    coeff = hyperpara * w_norm / (g_norm + weight_decay * w_norm + epsilon)
    # A zero weight or gradient norm gives no trust signal: keep the raw step.
    return tf.where(tf.logical_and(w_norm > 0, g_norm > 0), coeff,
                    tf.ones_like(coeff))


def LARSV2(input_weight, input_grad, weight_decay, learning_rate, hyperpara=0.001,
           epsilon=0.00001, use_clip=False, name=None):
    """Layer-wise adaptive rate scaling of one gradient (You et al., 2017).

    Returns ``coeff * (grad + weight_decay * weight)`` with
    ``coeff = hyperpara * |w| / (|g| + weight_decay * |w| + epsilon)``;
    with ``use_clip`` the coefficient becomes ``min(coeff / learning_rate, 1)``,
    as documented for Ascend's LarsV2 kernel.
    """
    with tf.name_scope(name or "LARSV2"):
        weight = tf.convert_to_tensor(input_weight, name="input_weight")
        grad = tf.convert_to_tensor(input_grad, dtype=weight.dtype, name="input_grad")
        decay = tf.cast(weight_decay, weight.dtype)
        coeff = _lars_coefficient(weight, grad, decay,
                                  tf.cast(hyperpara, weight.dtype),
                                  tf.cast(epsilon, weight.dtype))
        if use_clip:
            rate = tf.cast(learning_rate, weight.dtype)
            coeff = tf.minimum(coeff / rate, 1.0)
        return coeff * (grad + decay * weight)


def LARS(inputs_w, inputs_g, weight_decay, hyperpara=0.001, epsilon=0.00001,
         name=None):
    """The list form: LARSV2 (without clipping) on each weight/gradient pair."""
    with tf.name_scope(name or "LARS"):
        return [LARSV2(w, g, weight_decay, 1.0, hyperpara, epsilon)
                for w, g in zip(inputs_w, inputs_g)]


def _unsupported(op_name, hint):
    def stub(*args, **kwargs):
        raise NotImplementedError(
            "npu_ops.%s is an Ascend-only kernel with no stock TensorFlow "
            "equivalent here; %s" % (op_name, hint))
    stub.__name__ = op_name
    stub.__doc__ = "Ascend-only op %s: raises NotImplementedError." % op_name
    return stub


outfeed_enqueue_op = _unsupported(
    "outfeed_enqueue_op", "use NPUEstimatorSpec(host_call=...) to send tensors "
    "to the host.")
outfeed_dequeue_op = _unsupported(
    "outfeed_dequeue_op", "use NPUEstimatorSpec(host_call=...) to receive tensors "
    "on the host.")
stop_outfeed_dequeue_op = _unsupported(
    "stop_outfeed_dequeue_op", "host_call outfeeds stop with the Estimator.")

__all__ = ["NPUInit", "NPUShutdown", "initialize_system", "shutdown_system",
           "dropout", "dropout_v3", "gelu", "fast_gelu", "LARS", "LARSV2",
           "basic_lstm_cell", "lamb_apply_optimizer_assign", "lamb_apply_weight_assign",
           "adam_apply_one_assign",
           "adam_apply_one_with_decay_assign", "outfeed_enqueue_op",
           "outfeed_dequeue_op", "stop_outfeed_dequeue_op"]
