"""train() and evaluate() return without waiting for TensorFlow to close their session.

Closing a session destroys its input pipeline's iterator, and in TensorFlow
2.15 that waits for tf.data's autotuning thread to wake from a sleep that
doubles, up to 60 s, the longer the iterator lives (``docs/device_loop.md``,
"What a step and a call cost"). On ranks the close goes through the rank's
server and took 10-28 s after a 300-step call. Nothing a call keeps depends on
that wait: the final checkpoint, the summaries and every host_call record are
written by the hooks' ``end()``, before the session is closed.

``CloseBehindHook`` therefore hands a session that ended cleanly to a closing
thread, which closes and deletes it while the caller goes on. The thread first
runs the program's ``input_release`` op (``device_loop.input_release``), which
ends the input pipeline inside a ``Session.run``: on a rank's server the close
itself would otherwise hold the server's table of sessions for the whole wait,
stalling every other session there (the barrier after train() included).

* only a clean end is handed over: after an error the session is closed in
  place, as the stock Estimator does, and after SIGTERM/SIGINT too (the
  process is leaving; ``wind_down`` bounds that close);
* the closing thread is not a daemon: Python waits for it before the process
  exits, so TensorFlow is never torn down under a session it is deleting;
* the next call's session starts at once (its graph is built meanwhile)
  unless a close is still running and either GPUs are visible (two sessions'
  variables might not fit in device memory together) or ``MAX_PENDING``
  closes are already running; then it waits for them before it starts;
* a close that fails is logged as a warning; it can no longer lose anything.
"""

import threading
import time

import tensorflow as tf

from npu_bridge.distributed.cluster.devices import physical_gpu_count
from npu_bridge.core.graceful_stop import GracefulStop
from npu_bridge.tf_private import session as session_lib

# Sessions being closed at once before a new one waits: each holds its
# variables and input buffers until its close ends (at most about a minute).
MAX_PENDING = 2

_pending = []  # the closing threads that have not ended
_pending_lock = threading.Lock()


def _close(session, release, started):
    """Runs on the closing thread: ends the input pipeline, then closes ``session``."""
    try:
        if release is not None:
            try:
                session.run(release)
            except Exception as error:  # pylint: disable=broad-except
                tf.compat.v1.logging.info("npu_bridge: the input pipeline of a finished "
                                          "session ends with the session: %s", error)
        handle = session_lib.take_native_session(session)
        if handle is not None:
            session_lib.close_native_session(handle)
    except Exception as error:  # pylint: disable=broad-except
        tf.compat.v1.logging.warning(
            "npu_bridge: closing a finished session failed after %.1f s (everything it "
            "kept was already written): %s", time.monotonic() - started, error)
    finally:
        with _pending_lock:
            _pending.remove(threading.current_thread())


def close_behind(session, release=None):
    """Close ``session`` (a tf.compat.v1.Session) on a closing thread, running ``release``
    (``device_loop.input_release``) in it first; returns that thread."""
    thread = threading.Thread(target=_close, args=(session, release, time.monotonic()),
                              name="npu_bridge-session-close", daemon=False)
    with _pending_lock:
        _pending.append(thread)
    thread.start()
    return thread


def pending_closes():
    """The closing threads that are still running."""
    with _pending_lock:
        return list(_pending)


def wait_for_closes(at_most_pending=0):
    """Wait until at most ``at_most_pending`` closes are running."""
    while True:
        running = pending_closes()
        if len(running) <= at_most_pending:
            return
        running[0].join()


class CloseBehindHook(tf.compat.v1.train.SessionRunHook):
    """Lets train()/evaluate() return while their session closes (see the module).

    ``release``: the op that ends the input pipeline first (``device_loop.input_release``).
    ``begin()`` waits for earlier closes where the next session must not start
    beside them; ``end()`` replaces the session's ``close`` with a hand-over to
    the closing thread, so the close that follows every hook's ``end()`` returns
    at once. ``end()`` is only called when the session ends without an error.
    """

    def __init__(self, release=None):
        self._release = release

    def begin(self):
        wait_for_closes(0 if physical_gpu_count() else MAX_PENDING - 1)

    def end(self, session):
        if GracefulStop.stopping() is not None:
            return  # the process is leaving on a signal: close in place, bounded
        if not isinstance(session, session_lib.BaseSession):
            return
        handed_over = []

        def close():
            if not handed_over:  # close() is called again when the Session is deleted
                handed_over.append(close_behind(session, self._release))
        session.close = close
