"""Obtaining a name the way script code does in the TF1 mode (runs in the resolver process only).

``import a.b.c``, ``from a.b import c`` and ``from a.b import *`` go through
``builtins.__import__`` with the globals of a script (``__main__``), so the
TF1 mode's import rule, its meta path finders and whatever it adds later
decide, exactly as when the script runs.  The attributes a script walks
from there are read with ``getattr``; when a module lacks one, its submodule
is imported (a script that walks ``tf.python.ops`` usually has it imported
by something else), and the walk stops at the first object that is neither
a module nor a class (a function's or an instance's attributes are the
script's business).  Any exception raised on the way (AttributeError,
ImportError, NotImplementedError from a module ``__getattr__``, SystemExit
...) is the answer: the name and the error.
"""

import builtins
import importlib
import inspect
import os
import sys
import types

from npu_bridge.migration_check.lookup import binding_dotted, lookup_dotted


def script_globals():
    """Globals of a module the TF1 mode treats as script code."""
    return {"__name__": "__main__", "__file__": os.path.join(os.getcwd(), "script.py"),
            "__builtins__": builtins}


class Failure(Exception):
    """A lookup that failed: ``missing`` is the dotted name, ``error`` what was raised."""

    def __init__(self, missing, error):
        super().__init__(missing)
        self.missing = missing
        self.error = error


def error_fields(error):
    """The JSON fields describing an exception: its text and the names of its classes."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 (an exception whose __str__ fails still has a type)
        text = "(its message cannot be shown)"
    return {"error": "%s: %s" % (type(error).__name__, text),
            "error_types": [cls.__name__ for cls in type(error).__mro__]}


def _import_from(module, name):
    """``from module import name`` once the module is imported (IMPORT_FROM's rule: a missing
    attribute is an ImportError, so ``except ImportError`` in the script catches it)."""
    try:
        return getattr(module, name)
    except AttributeError as error:
        full = "%s.%s" % (getattr(module, "__name__", "?"), name)
        if full in sys.modules:
            return sys.modules[full]
        raise ImportError("cannot import name %r from %r: %s"
                          % (name, getattr(module, "__name__", "?"), error)) from error


def _obtain(binding):
    kind, module, rest = binding
    globals_ = script_globals()
    if kind == "import":
        top = builtins.__import__(module, globals_, None, None, 0)
        if not rest:
            return top
        current = top
        for part in module.split(".")[1:]:
            current = _import_from(current, part)
        return current
    if kind == "from":
        return _import_from(builtins.__import__(module, globals_, None, (rest,), 0), rest)
    star_module = builtins.__import__(module, globals_, None, ("*",), 0)
    exported = getattr(star_module, "__all__", None)
    if exported is None:
        exported = [n for n in dir(star_module) if not n.startswith("_")]
    if rest not in exported:
        raise AttributeError("'from %s import *' does not export %r" % (module, rest))
    return getattr(star_module, rest)


def _binding_missing(binding, error):
    """The dotted name a failed binding is missing: the module not found, or the name."""
    kind, module, _ = binding
    name = getattr(error, "name", None)
    if isinstance(error, ModuleNotFoundError) and name and (module + ".").startswith(name + "."):
        return name
    return binding_dotted(binding) if kind != "import" else module


def _child(current, attr):
    try:
        return getattr(current, attr)
    except AttributeError:
        name = getattr(current, "__name__", None)
        if not isinstance(current, types.ModuleType) or not name or name == "tensorflow":
            raise  # the TF1 module already tried its submodules
        try:
            return importlib.import_module(name + "." + attr)
        except ImportError:
            pass
        raise


def obtain(lookup):
    """(the object a lookup names, True) or (the last object walked, False) when the walk stopped
    early at an object that is neither a module nor a class; raises ``Failure`` naming the
    first part that fails."""
    try:
        current = _obtain(lookup.binding)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: B036 (whatever a module raises is the answer)
        raise Failure(_binding_missing(lookup.binding, error), error) from None
    for index, attr in enumerate(lookup.attrs):
        if not isinstance(current, types.ModuleType) and not inspect.isclass(current):
            return current, False
        try:
            current = _child(current, attr)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: B036
            raise Failure(lookup_dotted(lookup, index + 1), error) from None
    return current, True
