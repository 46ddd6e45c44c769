"""Does the callee accept the call's arguments?  Decided by the callee itself (resolver process only).

Where an argument decides whether a TF1-era script runs (an optimizer's
``decay=``, ``MirroredStrategy(num_gpus=)``, Keras 1's ``border_mode=``),
the name exists and the call still fails.  Two ways to ask, both general:

- the callee's signature, where it is explicit: the call's positional count
  and keyword names are bound to it (``inspect.signature``, decorators
  unwrapped), and a binding error is the answer (an unexpected keyword, too
  many positional arguments, one given twice; not a missing argument, which
  ``arg_scope`` or ``functools.partial`` may supply);
- keywords that land in a ``**kwargs`` catch-all cannot be judged from the
  signature, so a class is constructed with the call's arguments (their
  literal values, ``None`` where the source has an expression), in a
  throwaway graph and the resolver's empty working folder; an error whose
  message names one of those keywords, where the same construction without
  that keyword does not, is the answer (Keras rejects ``decay=`` with
  "decay is deprecated in the new Keras optimizer").  Any other outcome
  says nothing about the keyword, so nothing is reported.
  Only classes are constructed: building an optimizer or a layer object has
  no effect outside the process, calling an arbitrary function might.

A call with ``*args`` is only checked for its keyword names; one with ``**kw``
only for the keywords it spells out.  An expression's stand-in is ``None``,
then ``1`` and ``"x"``: a keyword counts as rejected only when each fails.
"""

import ast
import inspect
import re

import tensorflow as tf


class _Argument:
    """Stands for an argument whose value the source computes."""

    def __repr__(self):
        return "<argument>"


_ARGUMENT = _Argument()


def _value(source):
    return None if source is None else ast.literal_eval(source)


def _catch_all(signature):
    for parameter in signature.parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            return parameter.name
    return None


def rejection(callee, call):
    """(how, error) when ``callee`` rejects the call's arguments, else None."""
    if not callable(callee):
        return None
    try:
        signature = inspect.signature(callee)
    except (TypeError, ValueError):  # builtins without a signature
        return None
    keywords = dict((name, _ARGUMENT) for name, _ in call.keywords)
    positional = [] if call.star_args else [_ARGUMENT] * len(call.positional)
    try:
        signature.bind_partial(*positional, **keywords)
    except TypeError as error:
        return "signature", error
    named = {name for name, p in signature.parameters.items()
             if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    caught = [name for name, _ in call.keywords if name not in named]
    if caught and _catch_all(signature) and inspect.isclass(callee):
        return _construct(callee, call, caught)
    return None


def _constructed(cls, args, kwargs):
    """The error constructing ``cls(*args, **kwargs)`` raises, or None."""
    try:
        with tf.Graph().as_default():
            cls(*args, **kwargs)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: B036 (what it raises is the answer)
        return error
    return None


def _names(error, keyword):
    return error is not None and re.search(r"\b%s\b" % re.escape(keyword), str(error))


# Stand-ins for a value the source computes; a keyword rejected whatever its value is
# rejected with each of them, one that is only checked for its value is not.
_STAND_INS = (None, 1, "x")


def _construct(cls, call, caught):
    """("call", error) when constructing fails naming a keyword, whatever its value, and
    does not without that keyword."""
    args = [_value(source) for source in call.positional]
    kwargs = {name: _value(source) for name, source in call.keywords}
    computed = {name for name, source in call.keywords if source is None}
    error = _constructed(cls, args, kwargs)
    for name in caught:
        if not _names(error, name):
            continue
        without = {k: v for k, v in kwargs.items() if k != name}
        if _names(_constructed(cls, args, without), name):
            continue  # the error is not about this keyword
        if name in computed and not all(
                _names(_constructed(cls, args, dict(kwargs, **{name: value})), name)
                for value in _STAND_INS[1:]):
            continue  # only a stand-in value was rejected
        return "call", error
    return None
