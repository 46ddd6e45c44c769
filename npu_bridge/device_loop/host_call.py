"""host_call: checking the ``(fn, tensors)`` pair and calling ``fn`` on the host side.

A host_call is validated when the spec is built, so a mistake shows up at the
line of ``model_fn`` that made it, not minutes later inside a training loop.
"""

import functools
import inspect

import tensorflow as tf


def _describe(value):
    """A short 'what was given' for error messages."""
    if isinstance(value, (list, tuple, dict)):
        return type(value).__name__
    if isinstance(value, tf.Variable):
        return "tf.Variable %r" % value.name
    if tf.is_tensor(value):
        return "a single Tensor %r" % getattr(value, "name", value)
    return "%s (%r)" % (type(value).__name__, value)


def _signature(fn):
    """The call signature of ``fn``; partials and bound methods are already reduced."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _positional_bounds(sig):
    """(required, maximum) positional arguments; maximum is None with ``*args``."""
    required = maximum = 0
    for param in sig.parameters.values():
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            maximum += 1
            if param.default is param.empty:
                required += 1
        elif param.kind == param.VAR_POSITIONAL:
            maximum = None
            break
    return required, maximum


def _is_tensor_like(value):
    return isinstance(value, (tf.Tensor, tf.Variable)) or tf.is_tensor(value)


def _fn_name(fn):
    if isinstance(fn, functools.partial):
        return "functools.partial(%s)" % _fn_name(fn.func)
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def validate_host_call(host_call):
    """Raise if ``host_call`` is not a valid ``(fn, tensors)`` pair.

    The exception types follow the original adapter: ValueError for the shape
    of the pair and of its tensors argument, TypeError for a non-callable fn or
    non-tensor values, RuntimeError when the tensors do not fit fn's parameters.
    """
    if host_call is None:
        return
    if not isinstance(host_call, (tuple, list)) or len(host_call) != 2:
        got = ("a %s of %d elements" % (type(host_call).__name__, len(host_call))
               if isinstance(host_call, (tuple, list)) else _describe(host_call))
        raise ValueError(
            "host_call must be a tuple or list of two elements (fn, tensors); got %s." % got)
    fn, tensors = host_call
    if not callable(fn):
        raise TypeError(
            "host_call[0] must be callable (the host function); got %s." % _describe(fn))
    if not isinstance(tensors, (tuple, list, dict)):
        raise ValueError(
            "host_call[1] must be a list, tuple or dict of tensors; got %s." % _describe(tensors))

    if not tensors:
        raise ValueError(
            "host_call[1] must hold at least one tensor (each step sends them to fn); "
            "got an empty %s." % type(tensors).__name__)
    items = tensors.items() if isinstance(tensors, dict) else enumerate(tensors)
    for key, value in items:
        if isinstance(value, (tf.SparseTensor, tf.compat.v1.SparseTensorValue,
                              tf.RaggedTensor)):
            raise TypeError(
                "host_call[1][%r] is a %s; host_call sends dense tensors, e.g. "
                "tf.sparse.to_dense(x) or x.to_tensor()." % (key, type(value).__name__))
        if not _is_tensor_like(value):
            raise TypeError(
                "host_call[1][%r] must be a tf.Tensor or tf.Variable; got %s." % (key, _describe(value)))

    sig = _signature(fn)
    if sig is None:  # builtins without a signature: nothing more to check
        return
    name = _fn_name(fn)
    if isinstance(tensors, dict):
        _check_keywords(sig, tensors, name)
    else:
        required, maximum = _positional_bounds(sig)
        count = len(tensors)
        if count < required or (maximum is not None and count > maximum):
            expected = (str(maximum) if required == maximum else
                        "%d to %s" % (required, "any number" if maximum is None else maximum))
            raise RuntimeError(
                "host_call: the host function %s takes %s positional argument(s) %s, "
                "but host_call[1] holds %d tensor(s)." % (name, expected, str(sig), count))


def _check_keywords(sig, tensors, name):
    params = sig.parameters.values()
    takes_kwargs = any(p.kind == p.VAR_KEYWORD for p in params)
    by_name = {p.name: p for p in params
               if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    unknown = sorted(k for k in tensors if k not in by_name) if not takes_kwargs else []
    missing = sorted(n for n, p in by_name.items()
                     if p.default is p.empty and n not in tensors)
    positional_only = [p.name for p in params
                       if p.kind == p.POSITIONAL_ONLY and p.default is p.empty]
    if unknown or missing or positional_only:
        parts = []
        if unknown:
            parts.append("keys %s are not parameters of it" % unknown)
        if missing:
            parts.append("its parameters %s have no key" % missing)
        if positional_only:
            parts.append("its positional-only parameters %s cannot be given by key"
                         % positional_only)
        raise RuntimeError(
            "host_call: the dict host_call[1] does not match the host function %s%s: %s."
            % (name, str(sig), "; ".join(parts)))


class HostCall(object):
    """A validated host_call, flattened into a list of tensors for the outfeed.

    ``device_tensors()`` gives the values to send each step (a variable is read,
    so the global step arrives as the value it had after that step).
    ``call(values)`` rebuilds the list/dict structure from received tensors and
    calls fn, returning the ops it built.
    """

    def __init__(self, host_call):
        validate_host_call(host_call)
        self.fn, tensors = host_call
        self.is_dict = isinstance(tensors, dict)
        if self.is_dict:
            self.keys = sorted(tensors)
            self.sources = [tensors[k] for k in self.keys]
        else:
            self.keys = None
            self.sources = list(tensors)

    def device_tensors(self):
        values = []
        for src in self.sources:
            if isinstance(src, tf.Variable):
                values.append(tf.identity(src.read_value()))
            else:
                values.append(tf.identity(tf.convert_to_tensor(src)))
        return values

    def call(self, received):
        if self.is_dict:
            return self.fn(**dict(zip(self.keys, received)))
        return self.fn(*received)
