"""Loss scale managers with the TF1 contrib API: get_loss_scale() / update_loss_scale().

State (the scale and the good/bad step counters) lives in graph variables so it
is checkpointed with the model and survives Estimator restarts.  Variables and
constants are made lazily, once per graph, because migrated scripts often build
the manager outside ``model_fn`` while Estimator builds a fresh graph per call.
"""

import math
import numbers
import weakref

import tensorflow as tf

from npu_bridge.common.checks import check_int

# Largest float32; a scale at or beyond it would turn every gradient into inf.
_FLOAT32_MAX = 3.4028234663852886e38


def _check_number(name, value, low, low_inclusive=True, high=_FLOAT32_MAX):
    """A finite real in [low, high) (or (low, high)): nan and inf would stall training."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number; got %s %r."
                        % (name, type(value).__name__, value))
    if not math.isfinite(value):
        raise ValueError("%s must be a finite number; got %r." % (name, value))
    if value < low or (value == low and not low_inclusive):
        raise ValueError("%s must be %s %s; got %r."
                         % (name, ">=" if low_inclusive else ">", low, value))
    if value >= high:
        raise ValueError("%s must be below %g (float32 overflows to inf there); got %r."
                         % (name, high, value))


def _check_positive_int(name, value):
    check_int(name, value, high=None)


class LossScaleManager(object):
    """Interface: the scale to multiply the loss by, and how it reacts to overflow."""

    def get_loss_scale(self):
        """The loss scale as a float32 scalar tensor of the default graph."""
        raise NotImplementedError("%s must implement get_loss_scale()"
                                  % type(self).__name__)

    def update_loss_scale(self, finite_grads):
        """An op adjusting the scale given a bool scalar: were all gradients finite?"""
        raise NotImplementedError("%s must implement update_loss_scale()"
                                  % type(self).__name__)


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale.

    ``enable_overflow_check`` (an extra of the original adapter) decides
    whether steps with inf/nan gradients are still skipped; the scale itself
    never changes.
    """

    def __init__(self, loss_scale, enable_overflow_check=True):
        _check_number("FixedLossScaleManager loss_scale", loss_scale, 1)
        if not isinstance(enable_overflow_check, bool):
            raise TypeError("FixedLossScaleManager enable_overflow_check must be "
                            "True or False; got %r." % (enable_overflow_check,))
        self._value = float(loss_scale)
        self._enable_overflow_check = enable_overflow_check

    def get_enable_overflow_check(self):
        return self._enable_overflow_check

    def get_loss_scale(self):
        return tf.constant(self._value, dtype=tf.float32, name="loss_scale")

    def update_loss_scale(self, finite_grads):
        del finite_grads
        return tf.no_op(name="fixed_loss_scale_update")


class _ScaleState(object):
    """The three variables of a dynamic loss scale in one graph."""

    def __init__(self, init_loss_scale):
        def make(name, value, dtype):
            return tf.compat.v1.Variable(
                value, name=name, dtype=dtype, trainable=False,
                use_resource=True)

        with tf.compat.v1.variable_scope(None, default_name="loss_scale_manager"):
            self.scale = make("loss_scale", init_loss_scale, tf.float32)
            self.good_steps = make("good_steps", 0, tf.int32)
            self.bad_steps = make("bad_steps", 0, tf.int32)


class ExponentialUpdateLossScaleManager(LossScaleManager):
    """Dynamic loss scale: shrink on overflow, grow after a run of clean steps.

    * finite step: good_steps += 1; once it reaches ``incr_every_n_steps`` the
      scale is multiplied by ``incr_ratio`` (unless that overflows float32)
      and both counters reset.
    * inf/nan step: good_steps resets, bad_steps += 1; once bad_steps reaches
      ``decr_every_n_nan_or_inf`` (not necessarily consecutive) the scale is
      multiplied by ``decr_ratio``, floored at 1, and both counters reset.
    """

    def __init__(self, init_loss_scale, incr_every_n_steps,
                 decr_every_n_nan_or_inf=2, incr_ratio=2, decr_ratio=0.8):
        _check_number("ExponentialUpdateLossScaleManager init_loss_scale",
                      init_loss_scale, 1)
        _check_positive_int("ExponentialUpdateLossScaleManager incr_every_n_steps",
                            incr_every_n_steps)
        _check_positive_int(
            "ExponentialUpdateLossScaleManager decr_every_n_nan_or_inf",
            decr_every_n_nan_or_inf)
        _check_number("ExponentialUpdateLossScaleManager incr_ratio", incr_ratio, 1)
        _check_number("ExponentialUpdateLossScaleManager decr_ratio", decr_ratio,
                      0, low_inclusive=False)
        if decr_ratio > 1:
            raise ValueError("ExponentialUpdateLossScaleManager decr_ratio must be "
                             "in (0, 1]; got %r." % (decr_ratio,))
        self._init_loss_scale = float(init_loss_scale)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._incr_ratio = float(incr_ratio)
        self._decr_ratio = float(decr_ratio)
        self._states = weakref.WeakKeyDictionary()

    def _state(self):
        # init_scope: built inside a while/cond body (NPUEstimator's device
        # loop), the variables must still live in the outer graph.
        with tf.init_scope():
            graph = tf.compat.v1.get_default_graph()
            if graph not in self._states:
                self._states[graph] = _ScaleState(self._init_loss_scale)
            return self._states[graph]

    def get_loss_scale(self):
        return self._state().scale

    def update_loss_scale(self, finite_grads):
        state = self._state()
        finite = tf.convert_to_tensor(finite_grads, dtype=tf.bool)
        with tf.name_scope("update_loss_scale"):
            scale = state.scale.read_value()
            good = state.good_steps.read_value()
            bad = state.bad_steps.read_value()
            grow = tf.logical_and(finite, good + 1 >= self._incr_every_n_steps)
            shrink = tf.logical_and(tf.logical_not(finite),
                                    bad + 1 >= self._decr_every_n_nan_or_inf)
            grown = scale * self._incr_ratio
            grown = tf.where(grown < _FLOAT32_MAX, grown, scale)
            shrunk = tf.maximum(1.0, scale * self._decr_ratio)
            new_scale = tf.where(grow, grown, tf.where(shrink, shrunk, scale))
            zero = tf.zeros_like(good)
            reset = tf.logical_or(grow, shrink)
            new_good = tf.where(finite, tf.where(grow, zero, good + 1), zero)
            new_bad = tf.where(reset, zero, tf.where(finite, bad, bad + 1))
            return tf.group(state.scale.assign(new_scale, read_value=False),
                            state.good_steps.assign(new_good, read_value=False),
                            state.bad_steps.assign(new_bad, read_value=False))
