"""Does the installed package provide a dotted name?  Decided by looking it up, not by a list.

``tensorflow...`` is looked up in the TF1 module a script gets in the TF1
mode (``tf.compat.v1`` plus ``tf.contrib``, real submodules such as
``tensorflow.compat.v2`` and ``tensorflow.python``); ``npu_bridge...`` and
``hccl...`` in the installed modules.  The walk goes attribute by attribute,
importing a submodule when an attribute is missing, and stops at the first
object that is not a module (a class, function or flag object: its own
attributes are the script's business).  Looking names up imports npu_bridge,
TensorFlow and tf-slim, never the script.
"""

import importlib
import types

_roots = {}


def _root(name):
    if name not in _roots:
        if name == "tensorflow":
            from npu_bridge.tf1.facade import tf1_module
            _roots[name] = tf1_module()
        else:
            try:
                _roots[name] = importlib.import_module(name)
            except ImportError:
                _roots[name] = None
    return _roots[name]


def _child(module, attr):
    try:
        return True, getattr(module, attr)
    except (AttributeError, ImportError):  # lazy TensorFlow modules may raise ImportError
        pass
    name = getattr(module, "__name__", None)
    if not name or name == "tensorflow":  # the TF1 module already tried its submodules
        return False, None
    try:
        return True, importlib.import_module(name + "." + attr)
    except ImportError:
        return False, None


_missing_cache = {}


def first_missing(dotted):
    """The shortest prefix of ``dotted`` that does not exist, or None if it is provided."""
    if dotted in _missing_cache:
        return _missing_cache[dotted]
    parts = dotted.split(".")
    current = _root(parts[0])
    result = None if current is not None else parts[0]
    if current is not None:
        for index, attr in enumerate(parts[1:], start=2):
            if not isinstance(current, types.ModuleType):
                break
            found, current = _child(current, attr)
            if not found:
                result = ".".join(parts[:index])
                break
    _missing_cache[dotted] = result
    return result
