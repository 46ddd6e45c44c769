"""The module a script gets for ``import tensorflow`` in the TF1 mode.

It is the TF1 API: every name of ``tf.compat.v1`` (``tf.Session``,
``tf.ConfigProto``, ``tf.train.MomentumOptimizer``, ``tf.layers`` ...), plus
``tf.contrib`` (``npu_bridge.tf1.contrib``).  ``tf.compat`` is TensorFlow's
own ``tensorflow.compat`` except that ``tf.compat.v1`` is this module again, as
in TF 1.15, where ``tf.compat.v1.contrib`` worked (``tf.compat.v2`` is the real
one).  A real submodule such as ``tensorflow.python`` or ``tensorflow.core`` is
reached through it too, so ``import tensorflow.python.ops.math_ops`` keeps
working.  ``v1_counterpart`` gives ``from tensorflow.train import X`` the TF1
API's ``train``, as TF 1.15 did.  ``tf.keras`` and
``tf.python.keras`` are TF 1.15's Keras (``keras_era``).  The real ``tensorflow``
module is never replaced: ``sys.modules["tensorflow"]`` stays TF2.
"""

import importlib
import sys
import types

import tensorflow as _real_tf

from npu_bridge.tf1 import keras_era

_OWN = {
    "contrib": "npu_bridge.tf1.contrib",
}


class TF1Module(types.ModuleType):
    """``tensorflow`` as TF 1.15 scripts see it; attributes resolve lazily and are cached."""

    def __init__(self):
        super().__init__("tensorflow", _real_tf.compat.v1.__doc__)
        self.__file__ = getattr(_real_tf, "__file__", None)
        self.__version__ = _real_tf.__version__

    def __getattr__(self, name):
        if name in _OWN:
            value = importlib.import_module(_OWN[name])
        elif name == "compat":
            value = _compat_module()
        elif name in ("keras", "python"):
            value = keras_era.script_module("tensorflow." + name)
        else:
            value = _tf1_attribute(name)
        if not name.startswith("__"):
            setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(set(dir(_real_tf.compat.v1)) | set(_OWN) | {"compat"} | set(self.__dict__))

    def __repr__(self):
        return "<module 'tensorflow' (TF1 API of npu_bridge's TF1 mode)>"


def _tf1_attribute(name):
    v1 = _real_tf.compat.v1
    try:
        return getattr(v1, name)
    except AttributeError:
        pass
    if not name.startswith("__"):
        submodule = "tensorflow." + name
        if submodule in sys.modules:
            return sys.modules[submodule]
        try:
            return importlib.import_module(submodule)
        except ModuleNotFoundError as err:
            if err.name != submodule:
                raise
    raise AttributeError("module 'tensorflow' has no attribute %r in the TF1 API "
                         "(tf.compat.v1 of TensorFlow %s)" % (name, _real_tf.__version__))


_facade = None


def tf1_module():
    """The one TF1 module object (created on first use)."""
    global _facade
    if _facade is None:
        _facade = TF1Module()
    return _facade


class TF1Compat(types.ModuleType):
    """``tensorflow.compat`` as TF 1.15 scripts see it: ``v1`` is the TF1 module itself."""

    def __init__(self):
        super().__init__("tensorflow.compat", _real_tf.compat.__doc__)

    def __getattr__(self, name):
        value = tf1_module() if name == "v1" else getattr(_real_tf.compat, name)
        if not name.startswith("__"):
            setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(set(dir(_real_tf.compat)) | set(self.__dict__))


_compat = None


def _compat_module():
    global _compat
    if _compat is None:
        _compat = TF1Compat()
    return _compat


def v1_counterpart(name):
    """The TF1 API module for ``from tensorflow.x.y import ...`` in script code, or None.

    ``tensorflow.train``, ``tensorflow.summary``, ``tensorflow.data`` ... are
    TF2's API modules; TF 1.15 had its own there (``ChiefSessionCreator``,
    ``FileWriter``, ``make_one_shot_iterator``).  Only public API paths change:
    None for anything that is not a module of the TF1 API (``tensorflow.python...``,
    ``tensorflow.core...``), which stays the real module.
    """
    parts = name.split(".")[1:]
    if not parts or not (parts[0] == "compat" or isinstance(
            getattr(_real_tf.compat.v1, parts[0], None), types.ModuleType)):
        return None
    module = tf1_module()
    for part in parts:
        try:
            module = getattr(module, part)
        except AttributeError:
            return None
        if not isinstance(module, types.ModuleType):
            return None
    return module
