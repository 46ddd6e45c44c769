"""SIGTERM / SIGINT during train(): stop at a step boundary, keep everything up to it.

Schedulers send SIGTERM before preemption and users press Ctrl-C. Killing the
process there would lose the steps since the last checkpoint and the host_call
records the host had not written. Instead, while ``NPUEstimator.train`` runs:

* the first SIGTERM or SIGINT lets the current device loop finish, then asks
  the session to stop; the session's normal end writes a checkpoint at the
  step reached, and the host_call records are drained and flushed;
* train() then exits as the signal would have: ``SystemExit(128 + 15)`` for
  SIGTERM, ``KeyboardInterrupt`` for SIGINT;
* a second signal exits the process at once (status 128 + signal).

Python runs signal handlers only in the main thread and only between
bytecodes, which can be a whole device loop away. The signal is therefore
noticed through ``signal.set_wakeup_fd`` by a watcher thread, so a second
signal ends the process even while the main thread is inside ``Session.run``.
Outside the main thread (where handlers cannot be installed) nothing changes.

With ranks every rank must stop after the same loop, or the others would
wait in a collective for it: ``StopOnSignalHook`` ORs the ranks' requests with
a small all-reduce fetched with every run, so all ranks see the same answer.
"""

import os
import signal
import threading

import tensorflow as tf

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class GracefulStop(object):
    """Context manager: while active, the first SIGINT/SIGTERM is a stop request."""

    def __init__(self):
        self.signal = None
        self._active = False
        self._lock = threading.Lock()

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)
        self._old_wakeup = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        # A signal the process ignores (nohup, a shell's background job) stays ignored.
        self._old_handlers = {s: signal.signal(s, self._python_handler) for s in SIGNALS
                              if signal.getsignal(s) is not signal.SIG_IGN}
        self._active = True
        self._watcher = threading.Thread(target=self._watch, name="npu_bridge-signals",
                                         daemon=True)
        self._watcher.start()
        return self

    def __exit__(self, *exc_info):
        if not self._active:
            return False
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        signal.set_wakeup_fd(self._old_wakeup)
        self._active = False
        os.close(self._write)  # ends the watcher's read
        self._watcher.join(1.0)
        os.close(self._read)
        return False

    @staticmethod
    def _python_handler(signum, frame):
        """The watcher thread acts on the signal; this only keeps the default action off."""

    def _watch(self):
        while True:
            try:
                data = os.read(self._read, 16)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum in SIGNALS:
                    self._noticed(signum)

    def _noticed(self, signum):
        with self._lock:
            first = self.signal is None
            if first:
                self.signal = signum
        if not first:
            os._exit(128 + signum)  # pylint: disable=protected-access
        tf.compat.v1.logging.warning(
            "Got %s: training stops after the current loop, writes a checkpoint and "
            "the host_call records. Send it again to exit at once.",
            signal.Signals(signum).name)

    def hook(self):
        return StopOnSignalHook(self)

    def raise_if_signalled(self):
        """After train() returned: leave the way the signal asked for."""
        if self.signal == signal.SIGINT:
            raise KeyboardInterrupt()
        if self.signal is not None:
            raise SystemExit(128 + self.signal)


class StopOnSignalHook(tf.compat.v1.train.SessionRunHook):
    """Requests a stop after the run during which a signal arrived (on every rank)."""

    def __init__(self, stop):
        self._stop = stop

    def begin(self):
        from npu_bridge.distributed.cluster import runtime
        from npu_bridge.distributed.collectives import collectives
        self._agreed = None
        if runtime.is_distributed():
            self._requested = tf.compat.v1.placeholder_with_default(
                tf.constant(0, tf.int32), [], name="npu_stop_requested")
            self._agreed = collectives.allreduce(self._requested, "max")

    def before_run(self, run_context):
        if self._agreed is None:
            return None
        return tf.compat.v1.train.SessionRunArgs(
            self._agreed, feed_dict={self._requested: int(self._stop.signal is not None)})

    def after_run(self, run_context, run_values):
        agreed = run_values.results if self._agreed is not None else 0
        if self._stop.signal is not None or agreed:
            run_context.request_stop()
