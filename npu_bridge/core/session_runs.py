"""Repeated runs of an estimator's session skip the Python work of ``Session.run``.

Every ``Session.run`` maps its fetch structure to tensors (``_FetchHandler``),
checks and converts its feeds, and asks the C++ session for the executor of
that set of feeds and fetches. A training session repeats a handful of fetch
structures (the step's, the step plus a logging hook's...) thousands of times:
at one step per run that mapping was about a quarter of a step on a small
model (``docs/device_loop.md``, "What a step and a call cost").

``CachedRunsHook`` replaces ``run`` on the session it is given (that instance
only; the hooks' ``run_context.session`` is the same object) with one that
keeps, per fetch structure and fed tensors, the fetch handler and a C++
callable (``Session._make_callable_from_options``) and calls that callable
with the converted feeds. Errors are raised as ``Session.run`` raises them
(``tf_private.session.call_reporting_errors``). Whatever is unusual takes
``Session.run``'s own path, which raises its own errors: run options asking
for anything (tracing), fetches that are not tensors, ops or variables (names,
sparse tensors), feeds of strings or of values that are not numbers or lists, a fed
tensor that is also fetched, a closed session, a session on a remote target
(ranks: their master's callables were never run here), and new structures
once ``MAX_STRUCTURES`` are kept.
"""

import threading

import numpy as np
import tensorflow as tf

from npu_bridge.tf_private import session as session_lib

# Fetch structures kept per session; a script building new fetches every run
# would otherwise grow the cache without bound.
MAX_STRUCTURES = 64

_PLAIN = object()  # marks a structure whose runs take Session.run's own path
# Feed values converted here as Session.run converts them (np.asarray to the
# tensor's dtype); anything else, such as a TensorHandle, takes its path.
_FEEDABLE_TYPES = (np.ndarray, np.generic, bool, int, float, list, tuple)


def _structure_key(fetches):
    """A hashable key of ``fetches``' structure and leaves (by identity), or None
    when a leaf is anything but a graph tensor, op or variable."""
    kind = type(fetches)
    if isinstance(fetches, (tf.Tensor, tf.Operation, tf.Variable)):
        return id(fetches)
    if kind is list or kind is tuple or (isinstance(fetches, tuple) and hasattr(fetches, "_fields")):
        keys = tuple(_structure_key(item) for item in fetches)
        return None if None in keys else (kind, keys)
    if kind is dict:
        items = []
        for name, item in fetches.items():
            key = _structure_key(item)
            if key is None:
                return None
            items.append((name if isinstance(name, str) else id(name), key))
        return (dict, tuple(items))
    return None


class _Entry(object):
    """What one fetch structure and set of fed tensors runs with."""

    def __init__(self, fetches, feeds, handler, run):
        self.fetches = fetches  # kept alive: the key holds the ids of its leaves
        self.feeds = feeds
        self.dtypes = [t.dtype.as_numpy_dtype for t in feeds]
        self.handler = handler
        self.run = run


class _CachedRun(object):
    """``session.run`` with each fetch structure's handler and callable kept."""

    def __init__(self, session):
        self._session = session
        self._plain_run = session.run
        self._entries = {}
        self._lock = threading.Lock()

    def __call__(self, fetches, feed_dict=None, options=None, run_metadata=None):
        entry, feeds = self._entry(fetches, feed_dict, options)
        if entry is _PLAIN:
            return self._plain_run(fetches, feed_dict=feed_dict, options=options,
                                   run_metadata=run_metadata)
        args = _converted(entry, feeds)
        if args is None:  # Session.run raises what is wrong with them
            return self._plain_run(fetches, feed_dict=feed_dict, options=options,
                                   run_metadata=run_metadata)
        values = session_lib.call_reporting_errors(self._session, entry.run, *args)
        return entry.handler.build_results(self._session, values)

    def _entry(self, fetches, feed_dict, options):
        """(entry or _PLAIN, feed values in the entry's order)."""
        if session_lib.is_closed(self._session) or (options is not None and options.ByteSize()):
            return _PLAIN, None
        key = _structure_key(fetches)
        feeds = list(feed_dict.items()) if feed_dict else []
        if key is None or any(not isinstance(t, tf.Tensor) for t, _ in feeds):
            return _PLAIN, None
        key = (key, tuple(id(t) for t, _ in feeds))
        entry = self._entries.get(key)
        if entry is None:
            with self._lock:
                entry = self._entries.get(key)
                if entry is None:
                    if len(self._entries) >= MAX_STRUCTURES:
                        return _PLAIN, None
                    entry = self._entries[key] = self._build(fetches, [t for t, _ in feeds])
        return entry, [value for _, value in feeds]

    def _build(self, fetches, fed):
        graph = self._session.graph
        if any(t.graph is not graph or not graph.is_feedable(t)
               or t.dtype in (tf.string, tf.resource, tf.variant) for t in fed):
            return _PLAIN
        try:
            handler = session_lib.FetchHandler(graph, fetches, {})
        except (TypeError, ValueError, KeyError, tf.errors.InvalidArgumentError):
            return _PLAIN  # Session.run raises the same on it
        fed_refs = {t.ref() for t in fed}
        if any(t.ref() in fed_refs for t in handler.fetches()):
            return _PLAIN
        run = session_lib.make_callable(self._session, fed, handler.fetches(),
                                        handler.targets())
        return _Entry(fetches, fed, handler, run)


def _converted(entry, values):
    """The feed values as the arrays Session.run would feed, or None if Session.run
    would refuse or convert one differently."""
    args = []
    for tensor, dtype, value in zip(entry.feeds, entry.dtypes, values):
        if not isinstance(value, _FEEDABLE_TYPES):
            return None
        try:
            array = np.asarray(value, dtype=dtype)
        except (TypeError, ValueError, OverflowError):
            return None
        if isinstance(value, int) and not isinstance(value, bool) and array != value:
            return None  # out of the dtype's range: Session.run's TypeError
        if not tensor.shape.is_compatible_with(array.shape):
            return None
        args.append(array)
    return args


def install(session):
    """Give ``session`` (a local ``tf.compat.v1.Session``) the cached run; True if it
    now has it. Sessions on a remote target, or whose ``run`` someone else
    replaced, are left as they are."""
    if session.sess_str or "run" in vars(session):
        return isinstance(vars(session).get("run"), _CachedRun)
    session.run = _CachedRun(session)
    return True


class CachedRunsHook(tf.compat.v1.train.SessionRunHook):
    """Installs the cached run on the estimator's session (training, evaluation or
    prediction) as it is created."""

    def after_create_session(self, session, coord):
        install(session)
