"""Python exceptions raised inside the graph reach the caller with their own type.

Code of the user's that runs while the graph runs (a ``tf.py_function`` in a
host_call fn, a generator or ``py_function`` behind ``input_fn``'s dataset) is
called back by TensorFlow's py_func trampoline. When it raises, TensorFlow
turns the exception into an ``InvalidArgumentError: Graph execution error``:
the message survives, the type and the traceback object do not, so a caller's
``except ValueError`` no longer works.

``remember_py_func_errors()`` wraps the trampoline's registry so that it notes
(in a short, bounded list) every exception such a callback raises, unchanged.
``original_error(op_error)`` finds the noted exception that an OpError
reports; the estimator re-raises that one, chained to the OpError.
"""

import collections
import threading

import tensorflow as tf

from npu_bridge.tf_private.session import FuncRegistry

_MAX_REMEMBERED = 32
_remembered = collections.deque(maxlen=_MAX_REMEMBERED)
_lock = threading.Lock()
_installed = False


def remember_py_func_errors():
    """Install (once) the wrapper noting exceptions raised by py_func callbacks."""
    global _installed
    with _lock:
        if _installed:
            return
        original_call = FuncRegistry.__call__

        def call(self, token, device, args):
            try:
                return original_call(self, token, device, args)
            except Exception as error:  # noted, then re-raised unchanged
                _remembered.append(error)
                raise

        FuncRegistry.__call__ = call
        _installed = True


def _reported_by(op_error, error):
    message = op_error.message if isinstance(op_error, tf.errors.OpError) else str(op_error)
    text = "%s: %s" % (type(error).__name__, error)
    return text in message or (str(error) and repr(error) in message)


def original_error(op_error):
    """The Python exception ``op_error`` reports, if a py_func callback raised it."""
    if not isinstance(op_error, tf.errors.OpError):
        return None
    for error in reversed(list(_remembered)):
        if _reported_by(op_error, error):
            return error
    return None
