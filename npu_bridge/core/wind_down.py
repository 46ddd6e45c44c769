"""After a signal's checkpoint is written, the process exits within a few seconds.

A stop on SIGTERM/SIGINT (``graceful_stop``) keeps everything once the final
checkpoint and the host_call records are on disk. What is left is cleanup, and
part of it can take long for reasons that keep nothing: ``Session.close()``
destroys the input pipeline's iterator, which in TensorFlow 2.15 waits for the
tf.data autotuning thread to wake from its sleep, and that sleep doubles up to
60 s as training runs (a session open for 45 s took 37 s to close). A
scheduler kills the process 30 s after SIGTERM anyway, and a launcher waits
for every rank, so that wait would eat the whole grace period of a job.

``WindDown.start(what, status)`` logs what the process still does and, if it
has not exited ``WIND_DOWN_SECONDS`` later, logs what it was still waiting for
and ends the process with ``status`` (128 + the signal, as the signal itself
would). ``cancel()`` is for the caller that goes on living (a script that
catches KeyboardInterrupt).
"""

import os
import sys
import threading
import time

import tensorflow as tf

WIND_DOWN_SECONDS = 5.0


class WindDown(object):
    """A one-shot deadline for the rest of a stopping process."""

    def __init__(self, seconds=WIND_DOWN_SECONDS):
        self._seconds = seconds
        self._timer = None
        self._what = None
        self._started = None

    def start(self, what, status):
        """Log ``what`` the process does now; exit with ``status`` if not gone in time."""
        if self._timer is not None:
            return
        self._what, self._started = what, time.monotonic()
        tf.compat.v1.logging.warning("npu_bridge: %s; exiting within %g s.", what, self._seconds)
        self._timer = threading.Timer(self._seconds, self._exit, args=(status,))
        self._timer.name = "npu_bridge-wind-down"
        self._timer.daemon = True
        self._timer.start()

    def cancel(self):
        if self._timer is not None:
            self._timer.cancel()
            self._timer.join(1.0)  # it ends at once: leave no thread behind
            self._timer = None

    def _exit(self, status):
        sys.stderr.write(
            "npu_bridge: the process has not ended %.0f s after this: %s. (TensorFlow can "
            "take up to 60 s to close a session: it waits for tf.data's threads.) Nothing "
            "more is kept by waiting: exiting now with status %d.\n"
            % (time.monotonic() - self._started, self._what, status))
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(status)  # pylint: disable=protected-access
