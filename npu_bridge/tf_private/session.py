"""The session class and the py_func registry, which npu_bridge wraps.

* ``BaseSession``: every Session class goes through its ``__init__``; ranks
  send default-target sessions to their server by wrapping it
  (``distributed.sessions.session_target``).
* ``FuncRegistry``: the trampoline through which TensorFlow calls Python code
  in the graph (``tf.py_function``); wrapping its ``__call__`` lets errors of
  host_fn and input_fn code keep their type (``core.user_errors``).
* ``client_session``: the module ``tensorflow.python.client.session`` itself,
  which the original's star import gave migrated scripts as ``session``.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "session"
check_version(AREA, "client.session.BaseSession.__init__, script_ops.FuncRegistry.__call__")

try:
    from tensorflow.python.client import session as _session
    from tensorflow.python.ops import script_ops as _script_ops

    client_session = _session
    BaseSession = _session.BaseSession
    FuncRegistry = _script_ops.FuncRegistry
    if not callable(getattr(FuncRegistry, "__call__", None)):
        raise AttributeError("FuncRegistry.__call__")
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "BaseSession and the py_func registry", "plain Sessions of ranks "
                  "and the original types of errors raised in host_fn code", _error) from _error
