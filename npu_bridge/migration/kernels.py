"""Ascend's fused kernels that migrated scripts call, computed with stock TensorFlow ops.

Scripts reach these kernels through the adapter's generated-op module
(``npu_unary_ops.gelu``, ``helper.get_gen_ops().npu_alloc_float_status()``,
``npu_aicore_ops.fast_gelu_v2`` ...).  Each function here computes what the
kernel computes (formulas in the docstrings); gradients come from TensorFlow's
autodiff of the same ops.  ``GEN_OPS`` is that generated-op module: the
snake_case names below, and for any other kernel name an error that names the
kernel and says it has no stock TensorFlow equivalent here.

Two kernels depend on hardware state and are read as follows:

* Dropout masks: ``drop_out_gen_mask`` returns a packed bit mask (one bit per
  element, padded to a multiple of 128 elements, as uint8); ``drop_out_do_mask``
  unpacks it, so a mask only has to be passed from one to the other.  The V3
  forms use the same layout.
* Float status: Ascend keeps an overflow flag that arithmetic sets.  Here
  ``npu_get_float_status`` inspects the outputs of the ops it has control
  dependencies on (the way scripts use it: built under
  ``tf.control_dependencies(grads)``) and reports 1.0 in every field if any of
  them holds inf or nan.
"""

import math

import tensorflow as tf

from npu_bridge.migration.no_effect import say_once
from npu_bridge.tf_private.platform import random_uniform

_STATUS_FIELDS = 8
_MASK_ALIGN = 128


# ---- activations ---------------------------------------------------------------

def gelu(x, name=None):
    """``0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))`` (the tanh form)."""
    with tf.name_scope(name or "Gelu"):
        x = tf.convert_to_tensor(x, name="x")
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + tf.tanh(inner))


def gelu_grad(dy, x, y=None, name=None):
    """Gradient of ``gelu`` at ``x`` times ``dy`` (``y``, the forward output, is unused)."""
    del y
    with tf.name_scope(name or "GeluGrad"):
        x = tf.convert_to_tensor(x)
        k = math.sqrt(2.0 / math.pi)
        t = tf.tanh(k * (x + 0.044715 * x * x * x))
        return dy * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x * x))


def fast_gelu(x, name=None):
    """``x / (1 + exp(-1.702 * |x|)) * exp(0.851 * (x - |x|))``, i.e. ``x * sigmoid(1.702 x)``."""
    with tf.name_scope(name or "FastGelu"):
        x = tf.convert_to_tensor(x, name="x")
        return x * tf.sigmoid(1.702 * x)


def fast_gelu_grad(dy, x, name=None):
    """Gradient of ``fast_gelu`` at ``x`` times ``dy``."""
    with tf.name_scope(name or "FastGeluGrad"):
        x = tf.convert_to_tensor(x)
        s = tf.sigmoid(1.702 * x)
        return dy * (s + 1.702 * x * s * (1.0 - s))


def fast_gelu_v2(x, name=None):
    """``x * (sgn(x) * (a/2 * (min(|x|, -b) + b)**2 + 0.5) + 0.5)``, a=-0.1444, b=-1.769."""
    with tf.name_scope(name or "FastGeluV2"):
        x = tf.convert_to_tensor(x, name="x")
        a, b = -0.1444, -1.769
        clipped = tf.minimum(tf.abs(x), -b) + b
        return x * (tf.sign(x) * (a / 2.0 * clipped * clipped + 0.5) + 0.5)


# ---- dropout masks ---------------------------------------------------------------

def _bit_weights():
    return tf.constant([1 << i for i in range(8)], tf.int32)


def drop_out_gen_mask(shape, prob, seed=0, seed2=0, name=None):
    """A packed keep-mask for a tensor of ``shape``: each element kept with probability ``prob``.

    uint8, one bit per element (bit i of byte k is element 8k+i), the element
    count padded up to a multiple of 128.
    """
    with tf.name_scope(name or "DropOutGenMask"):
        shape = tf.cast(tf.convert_to_tensor(shape), tf.int64)
        count = tf.reduce_prod(shape)
        padded = (count + _MASK_ALIGN - 1) // _MASK_ALIGN * _MASK_ALIGN
        uniform = random_uniform(tf.reshape(padded, [1]), tf.float32,
                                                seed=seed or 0, seed2=seed2 or 0)
        prob = tf.cast(prob, tf.float32)
        keep = tf.cast(uniform < prob, tf.int32)
        packed = tf.reduce_sum(tf.reshape(keep, [-1, 8]) * _bit_weights(), axis=1)
        return tf.cast(packed, tf.uint8)


def drop_out_do_mask(x, mask, keep_prob, name=None):
    """``x`` with the elements the mask drops set to 0 and the rest divided by ``keep_prob``."""
    with tf.name_scope(name or "DropOutDoMask"):
        x = tf.convert_to_tensor(x, name="x")
        bits = tf.bitwise.bitwise_and(tf.cast(mask, tf.int32)[:, None], _bit_weights()) > 0
        keep = tf.reshape(bits, [-1])[:tf.size(x)]
        keep = tf.reshape(tf.cast(keep, x.dtype), tf.shape(x))
        return x * keep / tf.cast(keep_prob, x.dtype)


drop_out_gen_mask_v3 = drop_out_gen_mask
drop_out_do_mask_v3 = drop_out_do_mask


def _check_keep_prob(x, keep_prob, function):
    if not x.dtype.is_floating:
        raise ValueError("%s x must be a floating point tensor; got a %s tensor"
                         % (function, x.dtype.name))
    if isinstance(keep_prob, (int, float)) and not isinstance(keep_prob, bool):
        if not 0 < keep_prob <= 1:
            raise ValueError("%s keep_prob must be in (0, 1]; got %r" % (function, keep_prob))
        return keep_prob == 1
    return False


def dropout_v3(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Dropout through ``drop_out_gen_mask_v3`` and ``drop_out_do_mask_v3``."""
    with tf.name_scope(name or "dropout_v3"):
        x = tf.convert_to_tensor(x, name="x")
        if _check_keep_prob(x, keep_prob, "dropout_v3"):
            return x
        if noise_shape is not None:
            raise ValueError("dropout_v3 noise_shape is not supported (the kernel masks "
                             "every element); got %r" % (noise_shape,))
        seed, seed2 = tf.compat.v1.get_seed(seed)
        mask = drop_out_gen_mask_v3(tf.shape(x), keep_prob, seed or 0, seed2 or 0)
        return drop_out_do_mask_v3(x, mask, keep_prob)


# ---- overflow status -------------------------------------------------------------

def npu_alloc_float_status(name=None):
    """A cleared status: ``float32[8]`` zeros."""
    return tf.zeros([_STATUS_FIELDS], tf.float32, name=name or "NPUAllocFloatStatus")


def _watched_overflow():
    """1.0 if a float output of the ops in the current control dependencies is inf/nan."""
    graph = tf.compat.v1.get_default_graph()
    watched = []
    for item in graph._current_control_dependencies():  # pylint: disable=protected-access
        op = item if isinstance(item, tf.Operation) else getattr(item, "op", None)
        if op is None:
            continue
        watched.extend(t for t in op.outputs if t.dtype.is_floating)
    if not watched:
        say_once("npu_get_float_status without control dependencies",
                 "it reports inf/nan in the ops it depends on; build it under "
                 "tf.control_dependencies(tensors to check)")
        return tf.constant(0.0)
    bad = [tf.reduce_any(tf.logical_not(tf.math.is_finite(tf.cast(t, tf.float32))))
           for t in watched]
    return tf.cast(tf.reduce_any(tf.stack(bad)), tf.float32)


def npu_get_float_status(float_status=None, name=None):
    """``float_status`` with every field set to 1.0 if the watched ops overflowed."""
    with tf.name_scope(name or "NPUGetFloatStatus"):
        flag = _watched_overflow()
        base = npu_alloc_float_status() if float_status is None else \
            tf.cast(float_status, tf.float32)
        return tf.maximum(base, flag * tf.ones_like(base))


def npu_clear_float_status(float_status=None, name=None):
    """A cleared status shaped like ``float_status``."""
    if float_status is None:
        return npu_alloc_float_status(name=name or "NPUClearFloatStatus")
    return tf.zeros_like(float_status, name=name or "NPUClearFloatStatus")


def npu_get_float_status_v2(name=None):
    """``npu_get_float_status`` without an input status."""
    return npu_get_float_status(None, name=name or "NPUGetFloatStatusV2")


def npu_clear_float_status_v2(name=None):
    """A cleared status."""
    return npu_clear_float_status(None, name=name or "NPUClearFloatStatusV2")


# ---- fused layers ----------------------------------------------------------------

def fused_layer_norm(x, gamma, beta, begin_norm_axis=0, begin_params_axis=0,
                     epsilon=0.0000001, name=None):
    """``(y, mean, variance)``: normalised over axes ``begin_norm_axis..``, scaled by gamma, shifted by beta.

    mean and variance keep the normalised axes (size 1); gamma and beta have
    the shape of ``x``'s axes from ``begin_params_axis``.
    """
    with tf.name_scope(name or "FusedLayerNorm"):
        x = tf.convert_to_tensor(x, name="x")
        rank = x.shape.rank
        if rank is None:
            raise ValueError("layer_norm needs x of known rank")
        norm_axis = begin_norm_axis % rank if begin_norm_axis < 0 else begin_norm_axis
        params_axis = begin_params_axis % rank if begin_params_axis < 0 else begin_params_axis
        if not 0 <= norm_axis < rank or not 0 <= params_axis < rank:
            raise ValueError("layer_norm begin_norm_axis and begin_params_axis must be in "
                             "[-%d, %d); got %r and %r" % (rank, rank, begin_norm_axis,
                                                          begin_params_axis))
        axes = list(range(norm_axis, rank))
        mean, variance = tf.nn.moments(x, axes, keepdims=True)
        y = (x - mean) * tf.math.rsqrt(variance + epsilon)
        return [y * gamma + beta, mean, variance]


def layer_norm(x, gamma, beta, begin_norm_axis=0, begin_params_axis=0, epsilon=0.0000001,
               name=None):
    """Same as ``fused_layer_norm`` (the npu_aicore_ops name)."""
    return fused_layer_norm(x, gamma, beta, begin_norm_axis, begin_params_axis, epsilon, name)


def basic_lstm_cell(x, h, c, w, b, keep_prob=1.0, forget_bias=1.0, state_is_tuple=True,
                    activation="tanh", name=None):
    """One LSTM step: ``(ct, ht, it, jt, ft, ot, tanhct)``.

    Gates ``[x, h] @ w + b`` split in the order i, j, f, o (w is
    ``[input_size + hidden, 4 * hidden]``); ``f`` gets ``forget_bias``;
    ``ct = f * c + i * j``, ``ht = o * tanh(ct)`` -- the same as TensorFlow's
    ``LSTMCell`` with the same kernel and bias.
    """
    if activation != "tanh":
        raise ValueError("basic_lstm_cell activation must be 'tanh' (the only one the "
                         "kernel implements); got %r" % (activation,))
    if keep_prob != 1.0:
        raise ValueError("basic_lstm_cell keep_prob=%r: the kernel's dropout placement is "
                         "not documented, so only keep_prob=1.0 is computed here; apply "
                         "npu_ops.dropout to x yourself" % (keep_prob,))
    del state_is_tuple
    with tf.name_scope(name or "BasicLSTMCell"):
        gates = tf.matmul(tf.concat([x, h], axis=1), w) + b
        i, j, f, o = tf.split(gates, 4, axis=1)
        it, jt = tf.sigmoid(i), tf.tanh(j)
        ft, ot = tf.sigmoid(f + forget_bias), tf.sigmoid(o)
        ct = ft * c + it * jt
        tanhct = tf.tanh(ct)
        return ct, tanhct * ot, it, jt, ft, ot, tanhct


# ---- fused optimizer steps ("_assign": the new values are written into the inputs) ----

def _assigned(target, value):
    """``value`` written into ``target`` when it is a variable; the value read after that."""
    if hasattr(target, "assign"):
        with tf.control_dependencies([target.assign(value)]):
            return tf.identity(value)
    return value


def adam_apply_one_with_decay_assign(input0, input1, input2, input3, input4, mul0_x, mul1_x,
                                     mul2_x, mul3_x, mul4_x, add2_y, name=None):
    """One Adam step with weight decay; returns ``(v, m, var)`` and assigns them.

    input0 grad, input1 v, input2 m, input3 var, input4 learning rate:
    ``v = input0**2 * mul3_x + input1 * mul2_x``, ``m = input2 * mul0_x + input0 * mul1_x``,
    ``var = input3 - (m / (sqrt(v) + add2_y) + input3 * mul4_x) * input4``.
    """
    with tf.name_scope(name or "AdamApplyOneWithDecayAssign"):
        grad = tf.convert_to_tensor(input0)
        v = grad * grad * mul3_x + tf.convert_to_tensor(input1) * mul2_x
        m = tf.convert_to_tensor(input2) * mul0_x + grad * mul1_x
        var = tf.convert_to_tensor(input3)
        new_var = var - (m / (tf.sqrt(v) + add2_y) + var * mul4_x) * input4
        return (_assigned(input1, v), _assigned(input2, m), _assigned(input3, new_var))


def adam_apply_one_assign(input0, input1, input2, input3, input4, mul0_x, mul1_x, mul2_x,
                          mul3_x, add2_y, name=None):
    """``adam_apply_one_with_decay_assign`` without the decay term (``mul4_x = 0``)."""
    return adam_apply_one_with_decay_assign(input0, input1, input2, input3, input4, mul0_x,
                                            mul1_x, mul2_x, mul3_x, 0.0, add2_y,
                                            name=name or "AdamApplyOneAssign")


def lamb_apply_optimizer_assign(grad, inputv, inputm, input3, mul0_x, mul1_x, mul2_x, mul3_x,
                                add2_y, steps, do_use_weight, weight_decay_rate, name=None):
    """LAMB's Adam part: ``(update, next_v, next_m)``, next_v/next_m assigned to inputv/inputm.

    ``next_v = mul2_x * v + mul3_x * grad**2`` (beta2, 1 - beta2),
    ``next_m = mul0_x * m + mul1_x * grad`` (beta1, 1 - beta1), bias-corrected
    by ``1 - beta**steps``; ``update = m_hat / (sqrt(v_hat) + add2_y)
    + do_use_weight * weight_decay_rate * input3`` (input3: the weight).
    """
    with tf.name_scope(name or "LambApplyOptimizerAssign"):
        grad = tf.convert_to_tensor(grad)
        next_v = tf.convert_to_tensor(inputv) * mul2_x + grad * grad * mul3_x
        next_m = tf.convert_to_tensor(inputm) * mul0_x + grad * mul1_x
        steps = tf.cast(steps, grad.dtype)
        m_hat = next_m / (1.0 - tf.pow(tf.cast(mul0_x, grad.dtype), steps))
        v_hat = next_v / (1.0 - tf.pow(tf.cast(mul2_x, grad.dtype), steps))
        update = m_hat / (tf.sqrt(v_hat) + add2_y) + \
            tf.convert_to_tensor(input3) * weight_decay_rate * tf.cast(do_use_weight, grad.dtype)
        return update, _assigned(inputv, next_v), _assigned(inputm, next_m)


def lamb_apply_weight_assign(w_norm, g_norm, lr, update, var, name=None):
    """LAMB's weight step: ``var - lr * ratio * update``, assigned to ``var``; returns it.

    ``ratio = w_norm / g_norm`` (the trust ratio of ``||w||`` and ``||update||``),
    1 where either norm is 0. Scripts call it after ``lamb_apply_optimizer_assign``
    with ``w_norm = norm(var)``, ``g_norm = norm(update)``.
    """
    with tf.name_scope(name or "LambApplyWeightAssign"):
        update = tf.convert_to_tensor(update)
        w_norm = tf.cast(w_norm, update.dtype)
        g_norm = tf.cast(g_norm, update.dtype)
        one = tf.ones_like(w_norm)
        ratio = tf.where(w_norm > 0,
                         tf.where(g_norm > 0, w_norm / tf.where(g_norm > 0, g_norm, one), one),
                         one)
        new_var = tf.convert_to_tensor(var) - tf.cast(lr, update.dtype) * ratio * update
        return _assigned(var, new_var)


class GeneratedOps(object):
    """The adapter's generated-op module: the kernels above by their snake_case names.

    Any other kernel name raises NotImplementedError naming it.
    """

    _NAMES = ("gelu", "gelu_grad", "fast_gelu", "fast_gelu_grad", "fast_gelu_v2",
              "drop_out_gen_mask", "drop_out_do_mask", "drop_out_gen_mask_v3",
              "drop_out_do_mask_v3", "npu_alloc_float_status", "npu_get_float_status",
              "npu_clear_float_status", "npu_get_float_status_v2",
              "npu_clear_float_status_v2", "fused_layer_norm", "basic_lstm_cell",
              "adam_apply_one_assign", "adam_apply_one_with_decay_assign",
              "lamb_apply_optimizer_assign", "lamb_apply_weight_assign")

    def __init__(self):
        for name in self._NAMES:
            setattr(self, name, globals()[name])

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotImplementedError(
            "npu_bridge: the Ascend kernel %r has no stock TensorFlow implementation here "
            "(implemented kernels: %s)" % (name, ", ".join(self._NAMES)))

    def __dir__(self):
        return list(self._NAMES)


GEN_OPS = GeneratedOps()


def get_gen_ops():
    """The generated-op module (``npu_bridge.helper.helper.get_gen_ops``)."""
    return GEN_OPS


def generated_op(name):
    """A module ``__getattr__`` giving kernels of ``GEN_OPS`` by name (``npu_aicore_ops``)."""
    return getattr(GEN_OPS, name)
