"""The error for a ``tf.contrib`` name the TF1 mode does not provide.

It says which name and that the TF1 mode does not provide it (and, for a
part that moved whole, where it lives now: ``tf2_homes``), so a script
stops with a message that points at the gap instead of a bare
AttributeError.  Attribute access raises ``ContribAttributeNotProvided`` (an
AttributeError, so ``hasattr`` and ``getattr(x, name, default)`` keep
working); ``import tensorflow.contrib.x`` raises ``ContribModuleNotProvided``
(a ModuleNotFoundError).  Both are ``NotProvidedError``.
"""

from npu_bridge.tf1.tf2_homes import hint_for

DOCS_HINT = "see docs/tf1_mode.md for what it provides"


class NotProvidedError(Exception):
    """Base of the two errors below; ``name`` is the dotted name asked for."""


def _message(name):
    hint = hint_for(name)
    return "%s is not provided by npu_bridge's TF1 mode (%s%s)" % (
        name, hint + "; " if hint else "", DOCS_HINT)


class ContribAttributeNotProvided(NotProvidedError, AttributeError):
    def __init__(self, name):
        super().__init__(_message(name))
        self.name = name


class ContribModuleNotProvided(NotProvidedError, ModuleNotFoundError):
    def __init__(self, name):
        super().__init__(_message(name), name=name)


def not_provided_getattr(module_name, fallback=None):
    """A module ``__getattr__`` for ``module_name``: ``fallback(name)`` or the error.

    ``fallback`` returns the object for a name or raises AttributeError.
    """
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        if fallback is not None:
            try:
                return fallback(name)
            except AttributeError:
                pass
        raise ContribAttributeNotProvided("%s.%s" % (module_name, name))
    return __getattr__


def first_of(*modules):
    """A ``fallback`` that looks a name up in ``modules`` in order."""
    def lookup(name):
        for module in modules:
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(name)
    return lookup
