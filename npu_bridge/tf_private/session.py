"""The session class and the py_func registry, which npu_bridge wraps.

* ``BaseSession``: every Session class goes through its ``__init__``; ranks
  send default-target sessions to their server by wrapping it
  (``distributed.sessions.session_target``).
* ``FuncRegistry``: the trampoline through which TensorFlow calls Python code
  in the graph (``tf.py_function``); wrapping its ``__call__`` lets errors of
  host_fn and input_fn code keep their type (``core.user_errors``).
* ``client_session``: the module ``tensorflow.python.client.session`` itself,
  which the original's star import gave migrated scripts as ``session``.
* ``take_native_session`` / ``close_native_session``: a Session's C handle
  taken out of it (its ``close()`` and ``__del__`` then do nothing) and closed
  and deleted elsewhere; ``core.session_closing`` closes sessions on a
  thread of its own this way.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "session"
check_version(AREA, "client.session.BaseSession.__init__/_session/_closed, "
              "TF_CloseSession, TF_DeleteSession, script_ops.FuncRegistry.__call__")

try:
    from tensorflow.python.client import pywrap_tf_session as _c_session
    from tensorflow.python.client import session as _session
    from tensorflow.python.ops import script_ops as _script_ops

    client_session = _session
    BaseSession = _session.BaseSession
    FuncRegistry = _script_ops.FuncRegistry
    if not callable(getattr(FuncRegistry, "__call__", None)):
        raise AttributeError("FuncRegistry.__call__")
    _close_c_session, _delete_c_session = _c_session.TF_CloseSession, _c_session.TF_DeleteSession
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "BaseSession and the py_func registry", "plain Sessions of ranks "
                  "and the original types of errors raised in host_fn code", _error) from _error


def take_native_session(session):
    """The C session of ``session``, taken out of it: ``session`` is closed
    from then on (``run`` fails, ``close()`` and its deletion do nothing), and
    the caller must pass the handle to ``close_native_session``. None if it
    has no open C session."""
    handle = getattr(session, "_session", None)
    if handle is None or getattr(session, "_closed", True):
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
