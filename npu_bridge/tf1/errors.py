"""The error for a ``tf.contrib`` name the TF1 mode does not provide.

It says which name and that the TF1 mode does not provide it (and, for a
part that moved whole, where it lives now: ``tf2_homes``), so a script
stops with a message that points at the gap instead of a bare
AttributeError.  Attribute access raises ``ContribAttributeNotProvided`` (an
AttributeError, so ``hasattr`` and ``getattr(x, name, default)`` keep
working); ``import tensorflow.contrib.x`` raises ``ContribModuleNotProvided``
(a ModuleNotFoundError).  Both are ``NotProvidedError``.  Where something
else does the job, ``instead`` says what (it ends the message).
"""

import sys
import types

from npu_bridge.tf1.tf2_homes import hint_for

DOCS_HINT = "see docs/tf1_mode.md for what it provides"


class NotProvidedError(Exception):
    """Base of the two errors below; ``name`` is the dotted name asked for."""


def _message(name, instead=None):
    hint = hint_for(name)
    message = "%s is not provided by npu_bridge's TF1 mode (%s%s)" % (
        name, hint + "; " if hint else "", DOCS_HINT)
    return message + (". Instead: %s" % instead if instead else "")


class ContribAttributeNotProvided(NotProvidedError, AttributeError):
    def __init__(self, name, instead=None):
        super().__init__(_message(name, instead))
        self.name = name


class ContribModuleNotProvided(NotProvidedError, ModuleNotFoundError):
    def __init__(self, name, instead=None):
        super().__init__(_message(name, instead), name=name)


def not_provided_getattr(module_name, fallback=None, instead=None):
    """A module ``__getattr__`` for ``module_name``: ``fallback(name)`` or the error.

    ``fallback`` returns the object for a name or raises AttributeError;
    ``instead`` maps names refused on purpose to what to use instead (a
    string: the same advice for every name).  The module's ``__all__`` (what
    ``from tensorflow.contrib.layers import *`` binds) is its own public
    names and those ``fallback.names()`` lists, as TF 1.15's part exported.
    """
    module_globals = sys._getframe(1).f_globals

    def __getattr__(name):
        if name == "__all__" and module_globals.get("__getattr__") is __getattr__:
            module_globals["__all__"] = _public_names(module_globals, fallback)
            return module_globals["__all__"]
        if name.startswith("__"):
            raise AttributeError(name)
        if fallback is not None:
            try:
                return fallback(name)
            except AttributeError:
                pass
        advice = instead if isinstance(instead, str) else (instead or {}).get(name)
        raise ContribAttributeNotProvided("%s.%s" % (module_name, name), advice)
    return __getattr__


def first_of(*modules):
    """A ``fallback`` that looks a name up in ``modules`` in order; ``names()`` lists them."""
    def lookup(name):
        for module in modules:
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(name)

    def names():
        return {name for module in modules
                for name in getattr(module, "__all__", None) or dir(module)
                if not name.startswith("_")}
    lookup.names = names
    return lookup


def _public_names(module_globals, fallback):
    own = {name for name, value in module_globals.items()
           if not name.startswith("_") and getattr(value, "__module__", None) != __name__
           and (not isinstance(value, types.ModuleType)  # helpers it imported, but not
                or value.__name__.startswith("tensorflow.contrib."))}  # its own submodules
    return sorted(own | set(getattr(fallback, "names", set)()))
