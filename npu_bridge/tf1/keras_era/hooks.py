"""Keras 2.15 classes behaving as TF 1.15's Keras did where scripts of that time relied on it.

- Private hooks that subclasses of that time override, with that time's
  signature: Keras 2.15 calls ``BatchNormalization._moments(inputs, axes,
  keep_dims=..., mask=mask)``; a subclass written for TF 1.15 defines
  ``_moments(self, inputs, reduction_axes, keep_dims)`` (TPU batch norm in
  EfficientNet, MnasNet, SpineNet ...).  Such an override is wrapped, when
  its class is created, so that it is called without the keywords it does
  not take; TF 1.15's batch norm had no mask, so dropping it computes what
  TF 1.15 computed.
- ``tensor._keras_shape``: the static shape as a tuple with None for unknown
  dimensions, as Keras of that time set on every layer output.
- ``Model(input=x, output=y)``: Keras 1's argument names, which standalone
  Keras 2.2 still took (with a warning) and scripts of that time still pass;
  they are given to Keras 2.15 as ``inputs=`` / ``outputs=``.

``install()`` applies both, for the TF1 mode only; outside it Keras is untouched.
"""

import functools
import inspect

from keras.src.engine.functional import Functional
from keras.src.engine.training import Model
from keras.src.layers.normalization.batch_normalization import BatchNormalizationBase
from tensorflow.python.framework import tensor as tensor_lib

from npu_bridge.tf1.notices import warn_once

# (base class, private hook, keywords Keras 2.15 passes that TF 1.15's signature lacked)
ERA_HOOKS = (
    (BatchNormalizationBase, "_moments", ("mask",)),
)

_installed = False


def install():
    """Applies the era behaviour (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    for base, hook, keywords in ERA_HOOKS:
        _adapt_overrides(base, hook, keywords)
    tensor_lib.Tensor._keras_shape = property(_keras_shape)
    Model.__new__ = staticmethod(_keras1_arguments(Model.__new__))
    for cls in (Model, Functional):
        cls.__init__ = _keras1_arguments(cls.__init__)


_KERAS1_NAMES = (("input", "inputs"), ("output", "outputs"))


def _keras1_arguments(function):
    """``function`` taking Keras 1's ``input=`` / ``output=`` as ``inputs=`` / ``outputs=``."""
    @functools.wraps(function)
    def keras1_arguments(*args, **kwargs):
        for old, new in _KERAS1_NAMES:
            if old in kwargs and new not in kwargs:
                kwargs[new] = kwargs.pop(old)
                warn_once("keras1_model_arguments",
                          "Model(input=..., output=...) are Keras 1's argument names; "
                          "npu_bridge's TF1 mode passes them as inputs=/outputs=, as "
                          "standalone Keras 2.2 did")
        return function(*args, **kwargs)
    return keras1_arguments


def _keras_shape(tensor):
    shape = tensor.shape
    return None if shape.rank is None else tuple(shape.as_list())


def _adapt_overrides(base, hook, keywords):
    previous = base.__dict__.get("__init_subclass__")

    def __init_subclass__(cls, **kwargs):
        if previous is not None:
            previous.__func__(cls, **kwargs)
        else:
            super(base, cls).__init_subclass__(**kwargs)
        override = cls.__dict__.get(hook)
        if override is not None:
            dropped = [k for k in keywords if not _accepts(override, k)]
            if dropped:
                setattr(cls, hook, _without_keywords(override, dropped))

    base.__init_subclass__ = classmethod(__init_subclass__)


def _accepts(function, keyword):
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return True
    return keyword in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _without_keywords(function, dropped):
    @functools.wraps(function)
    def era_signature(*args, **kwargs):
        for keyword in dropped:
            kwargs.pop(keyword, None)
        return function(*args, **kwargs)
    return era_signature
