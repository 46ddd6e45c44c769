"""The module a script gets for ``import tensorflow`` in the TF1 mode.

It is the TF1 API: every name of ``tf.compat.v1`` (``tf.Session``,
``tf.ConfigProto``, ``tf.train.MomentumOptimizer``, ``tf.layers`` ...), plus
``tf.contrib`` (``npu_bridge.tf1.contrib``).  ``tf.compat`` is TensorFlow's
own ``tensorflow.compat`` (so ``tf.compat.v1`` / ``tf.compat.v2`` are the real
ones), and a real submodule such as ``tensorflow.python`` or
``tensorflow.core`` is reached through it too, so ``import
tensorflow.python.ops.math_ops`` keeps working.  ``tf.keras`` and
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
    "compat": "tensorflow.compat",
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
        elif name in ("keras", "python"):
            value = keras_era.script_module("tensorflow." + name)
        else:
            value = _tf1_attribute(name)
        if not name.startswith("__"):
            setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(set(dir(_real_tf.compat.v1)) | set(_OWN) | set(self.__dict__))

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
