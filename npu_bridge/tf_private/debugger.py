"""tfdbg (TensorFlow 1.x's debugger): watches on a run and the reader of its dumps.

Op dumps and overflow checks capture one ``Session.run`` with
``debug_utils.watch_graph`` and read it back with ``debug_data.DebugDumpDir``
(``debugging.capture``). Only imported when dumps or overflow checks are
asked for; if tfdbg is gone from a TensorFlow version, those fail here.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "debugger"
check_version(AREA, "debug.lib.debug_utils.watch_graph, debug.lib.debug_data.DebugDumpDir")

try:
    from tensorflow.python.debug.lib import debug_data  # noqa: F401
    from tensorflow.python.debug.lib import debug_utils  # noqa: F401
except ImportError as _error:
    raise missing(AREA, "tfdbg (tensorflow.python.debug)",
                  "op dumps and overflow checks cannot capture a run", _error) from _error
