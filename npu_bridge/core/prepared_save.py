"""A checkpoint save's run, prepared on a thread as the session starts.

The first run of a set of feeds and fetches in a session prunes the graph for
them, optimises what is left and creates its executors; the runs after it only
execute. For the save of bench_startup's 250-variable model that first run took
0.26-0.43 s against 0.01-0.03 s for the next ones, locally and through a rank's
server alike (2-core machine, December 2026). A train() call on an unchanged
model writes no checkpoint as its session starts (``core.checkpoint_saver``),
so its first save is often the final one, which the caller waits for, and with
ranks every other rank too, at the barrier after train().

``PreparedSave`` makes the C++ callable of the Saver's save (its filename tensor
fed, its save tensor fetched) on a thread of its own as the session starts, and
``session_for`` gives ``Saver.save`` a session whose run of exactly that feed
and fetch calls the callable; every other run goes to the session itself, and
errors are raised as ``Session.run`` raises them. The files written are the
Saver's own: only which path of the C++ session runs the save op changes. If
making the callable fails, saves run as before.

The thread only asks the C++ session for the callable (the GIL is released
meanwhile). Each save through it waits for it, and so does the checkpoint
saver's ``end()``, so no train() call returns with it running; it is not a
daemon either, so the process never exits under it. On a rank's server, making
it holds the master session while it prunes the graph, and a run starting then
waits: the saver starts it right after its first run of the session, while it
works in Python (the ``.meta`` bytes, graph records) and runs nothing.
"""

import threading

import numpy as np
import tensorflow as tf

from npu_bridge.tf_private import session as session_lib


class PreparedSave(object):
    """The save op of ``saver_def`` made runnable in ``session`` ahead of its first save."""

    def __init__(self, session, saver_def):
        self._session = session
        self.feed, self.fetch = saver_def.filename_tensor_name, saver_def.save_tensor_name
        self.run = None
        # not a daemon: the process waits for it rather than tearing TensorFlow down under it
        self._thread = threading.Thread(target=self._prepare, name="npu_bridge-save-run")
        self._thread.start()

    def _prepare(self):
        try:
            graph = self._session.graph
            self.run = session_lib.make_callable(
                self._session, [graph.get_tensor_by_name(self.feed)],
                [graph.get_tensor_by_name(self.fetch)], [])
        except Exception as error:  # pylint: disable=broad-except
            tf.compat.v1.logging.info("npu_bridge: preparing the checkpoint save's run failed "
                                      "(saves run it through Session.run): %s", error)

    def wait(self):
        """Until the callable is made or has failed."""
        self._thread.join()

    def session_for(self, session):
        """What to pass ``Saver.save`` for ``session``: ``session`` itself unless it is
        the one prepared, open, with its callable made."""
        if session is not self._session:
            return session
        self.wait()
        if self.run is None or session_lib.is_closed(session):
            return session
        return _SessionWithPreparedSave(session, self)


class _SessionWithPreparedSave(session_lib.SessionInterface):
    """``session`` with its save run through the prepared callable."""

    def __init__(self, session, prepared):
        self._session, self._prepared = session, prepared

    @property
    def graph(self):
        return self._session.graph

    @property
    def sess_str(self):
        return self._session.sess_str

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        prepared = self._prepared
        if (options is None and run_metadata is None and fetches == prepared.fetch
                and isinstance(feed_dict, dict) and list(feed_dict) == [prepared.feed]):
            path = np.asarray(tf.compat.as_bytes(feed_dict[prepared.feed]), dtype=object)
            return session_lib.call_reporting_errors(self._session, prepared.run, path)[0]
        return self._session.run(fetches, feed_dict=feed_dict, options=options,
                                 run_metadata=run_metadata)

    def partial_run_setup(self, fetches, feeds=None):
        return self._session.partial_run_setup(fetches, feeds)

    def partial_run(self, handle, fetches, feed_dict=None):
        return self._session.partial_run(handle, fetches, feed_dict)
