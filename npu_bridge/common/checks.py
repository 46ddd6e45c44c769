"""Argument checks shared by every public entry point, each written once.

Messages name the argument, what was expected and what was given, e.g.
``iterations_per_loop must be a positive int; got float 2.0.`` Integers from
numpy are accepted and returned as plain ints; bools are refused (``True`` is
an int to Python, never a step count to a user).
"""

import math
import numbers

# Loop lengths and step counts run through int32 placeholders in the graph.
INT32_LIMIT = 2 ** 31


def _kind(low):
    return "a positive" if low == 1 else "a non-negative" if low == 0 else "an"


def check_int(name, value, low=1, high=INT32_LIMIT):
    """``value`` as an int in [low, high) (``None``: no bound on that side)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be %s int; got %s %r."
                        % (name, _kind(low), type(value).__name__, value))
    if low is not None and value < low:
        if low in (0, 1):
            raise ValueError("%s must be %s int; got %d." % (name, _kind(low), value))
        raise ValueError("%s must be an int >= %d; got %d." % (name, low, value))
    if high is not None and value >= high:
        raise ValueError("%s must be below %d (it runs through int32 in the graph); got %d."
                         % (name, high, value))
    return int(value)


def check_optional_int(name, value, low=1, high=INT32_LIMIT):
    """None, or ``check_int(name, value, low, high)``."""
    return None if value is None else check_int(name, value, low, high)


def check_type(name, value, expected, expected_text=None):
    """Raise TypeError unless ``value`` is an instance of ``expected`` (a type or tuple)."""
    if not isinstance(value, expected):
        raise TypeError("%s must be %s; got %s."
                        % (name, expected_text or _type_text(expected), type(value).__name__))
    return value


def check_bool(name, value):
    """Raise TypeError unless ``value`` is True or False."""
    if not isinstance(value, bool):
        raise TypeError("%s must be True or False; got %r." % (name, value))
    return value


def check_optional_seconds(name, value):
    """None, or a finite number of seconds >= 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number of seconds; got %s %r."
                        % (name, type(value).__name__, value))
    if not math.isfinite(value) or value < 0:
        raise ValueError("%s must be a finite number of seconds >= 0; got %r." % (name, value))
    return value


def check_choice(name, value, choices, meaning=None):
    """Raise ValueError unless ``value`` is one of ``choices`` (``meaning``: how to say them)."""
    if value not in choices:
        raise ValueError("%s must be %s; got %r."
                         % (name, meaning or "one of " + ", ".join(map(repr, choices)), value))
    return value


def _type_text(expected):
    types = expected if isinstance(expected, tuple) else (expected,)
    names = [t.__name__ for t in types]
    return "a " + " or a ".join(names)
