"""The session class and the py_func registry, which npu_bridge wraps.

* ``BaseSession``: every Session class goes through its ``__init__``; ranks
  send default-target sessions to their server by wrapping it
  (``distributed.sessions.session_target``). ``SessionInterface``: what
  ``Saver.save`` accepts as a session (``core.prepared_save`` gives it one).
* ``FuncRegistry``: the trampoline through which TensorFlow calls Python code
  in the graph (``tf.py_function``); wrapping its ``__call__`` lets errors of
  host_fn and input_fn code keep their type (``core.user_errors``).
* ``client_session``: the module ``tensorflow.python.client.session`` itself,
  which the original's star import gave migrated scripts as ``session``.
* ``take_native_session`` / ``close_native_session``: a Session's C handle
  taken out of it (its ``close()`` and ``__del__`` then do nothing) and closed
  and deleted elsewhere; ``core.session_closing`` closes sessions on a
  thread of its own this way.
* ``FetchHandler``, ``make_callable``, ``call_reporting_errors``: what
  ``Session.run`` does once per call (map the fetch structure to tensors and
  back), the C++ callable for one set of feeds, fetches and targets, and the
  error translation every run goes through; ``core.session_runs`` keeps the
  first two per fetch structure so that a repeated run skips them.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "session"
check_version(AREA, "client.session.BaseSession.__init__/_session/_closed/"
              "_make_callable_from_options/_do_call, client.session._FetchHandler, "
              "TF_CloseSession, TF_DeleteSession, script_ops.FuncRegistry.__call__")

try:
    from tensorflow.python.client import pywrap_tf_session as _c_session
    from tensorflow.python.client import session as _session
    from tensorflow.python.ops import script_ops as _script_ops

    client_session = _session
    BaseSession = _session.BaseSession
    SessionInterface = _session.SessionInterface
    FuncRegistry = _script_ops.FuncRegistry
    if not callable(getattr(FuncRegistry, "__call__", None)):
        raise AttributeError("FuncRegistry.__call__")
    _close_c_session, _delete_c_session = _c_session.TF_CloseSession, _c_session.TF_DeleteSession
    FetchHandler = _session._FetchHandler  # pylint: disable=protected-access
    for _name in ("_make_callable_from_options", "_do_call"):
        if not callable(getattr(BaseSession, _name, None)):
            raise AttributeError("BaseSession.%s" % _name)
    from tensorflow.core.protobuf import config_pb2 as _config_pb2
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "BaseSession, its fetch handler and callables, and the py_func "
                  "registry", "plain Sessions of ranks, the estimator's cached runs and the "
                  "original types of errors raised in host_fn code", _error) from _error


def is_closed(session):
    """True once ``session`` was closed (or its C session taken)."""
    return getattr(session, "_closed", True)


def take_native_session(session):
    """The C session of ``session``, taken out of it: ``session`` is closed
    from then on (``run`` fails, ``close()`` and its deletion do nothing), and
    the caller must pass the handle to ``close_native_session``. None if it
    has no open C session."""
    handle = getattr(session, "_session", None)
    if handle is None or is_closed(session):
        return None
    session._closed = True  # pylint: disable=protected-access
    session._session = None  # pylint: disable=protected-access
    return handle


def close_native_session(handle):
    """Close and delete a handle from ``take_native_session`` (what
    ``Session.close()`` and the Session's deletion would have done)."""
    try:
        _close_c_session(handle)
    finally:
        _delete_c_session(handle)


def make_callable(session, feeds, fetches, targets):
    """The session's C++ callable feeding ``feeds`` (tensors, in order), returning
    the values of ``fetches`` (tensors, in order) and running ``targets`` (ops)."""
    options = _config_pb2.CallableOptions(
        feed=[t.name for t in feeds], fetch=[t.name for t in fetches],
        target=[op.name for op in targets])
    return session._make_callable_from_options(options)  # pylint: disable=protected-access


def call_reporting_errors(session, fn, *args):
    """``fn(*args)`` with errors raised as ``Session.run`` raises them (the failing
    op named and located in the graph)."""
    return session._do_call(fn, *args)  # pylint: disable=protected-access
