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
a small all-reduce fetched with every run, and a rank stops only on that
agreed answer, never on its own signal alone: a signal that reaches one rank
while its run ends and another's next run has begun would otherwise leave the
second waiting for the first in that run's all-reduce. Ranks therefore stop
after the first run that starts after the signal (up to two loops).

Once the final checkpoint and the records are on disk (or, where nothing is
saved, once the session ends) the rest is bounded: ``wind_down`` exits the
process a few seconds later if TensorFlow is still closing the session. Each
stage is logged, so a stopping job says what it waits for.

``evaluate()`` stops the same way after the current loop, but each rank on its
own signal (ranks evaluate independently and may make different numbers of
runs), and it writes no metrics for the partial evaluation: it leaves as the
signal asks, without a result.
"""

import os
import signal
import threading

import tensorflow as tf

from npu_bridge.core.wind_down import WindDown

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class EvaluationInterrupted(Exception):
    """Raised out of an evaluation that a signal stopped (no metrics are written)."""


class GracefulStop(object):
    """Context manager: while active, the first SIGINT/SIGTERM is a stop request.

    ``then``: what the stop does after the current loop, for the log line.
    """

    _innermost = None  # the active stop of this process (signals are process-wide)

    def __init__(self, then="writing a checkpoint and the host_call records"):
        self.signal = None
        self._then = then
        self._outer = None
        self.saves_checkpoint = False  # set when a checkpoint saver runs in this session
        self._active = False
        self._lock = threading.Lock()
        self._wind_down = WindDown()

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
        self._outer, GracefulStop._innermost = GracefulStop._innermost, self
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
        GracefulStop._innermost = self._outer
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
            "Got %s: stopping after the current loop, then %s. Send it again to exit "
            "at once.", signal.Signals(signum).name, self._then)

    @classmethod
    def stopping(cls):
        """The active stop of this process that already got a signal, or None.

        E.g. the train() around the evaluation that train_and_evaluate starts from
        a checkpoint listener, after the signal's final checkpoint.
        """
        stop = cls._innermost
        while stop is not None and stop.signal is None:
            stop = stop._outer
        return stop

    def pass_to_enclosing(self):
        """Inside another active stop (evaluate() within train()): hand it this signal.

        Returns True if there was one; it then stops as if it had got the signal.
        """
        if self._outer is None or self.signal is None:
            return False
        with self._outer._lock:  # pylint: disable=protected-access
            if self._outer.signal is None:
                self._outer.signal = self.signal
        self._wind_down.cancel()
        self._outer.wind_down("an evaluation inside training stopped on a signal; "
                              "training stops too; closing its session")
        return True

    def hook(self):
        return StopOnSignalHook(self)

    def evaluation_hook(self):
        return StopEvaluationOnSignalHook(self)

    def wind_down(self, what):
        """After a signal: ``what`` is all that is left; bound it (``wind_down``)."""
        if self.signal is not None:
            self._wind_down.start(what, 128 + self.signal)

    def raise_if_signalled(self):
        """After train() or evaluate() returned: leave the way the signal asked for."""
        if self.signal == signal.SIGINT:
            self._wind_down.cancel()  # the caller may catch it and go on
            raise KeyboardInterrupt()
        if self.signal is not None:
            raise SystemExit(128 + self.signal)


class StopOnSignalHook(tf.compat.v1.train.SessionRunHook):
    """Requests a stop after the run during which a signal arrived (with ranks: agreed by all)."""

    def __init__(self, stop):
        self._stop = stop
        self._stopping = False

    def begin(self):
        from npu_bridge.distributed.cluster import runtime
        from npu_bridge.distributed.collectives import collectives
        self._agreed = None
        self._global_step = tf.compat.v1.train.get_global_step()
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
        if self._agreed is None:
            stop = self._stop.signal is not None
        else:  # only what every rank saw: all of them stop after this same run
            stop = bool(run_values.results)
        if stop and not self._stopping:
            self._stopping = True
            step = (run_context.session.run(self._global_step)
                    if self._global_step is not None else "?")
            tf.compat.v1.logging.warning(
                "npu_bridge: stopping at global step %s%s; next: the host_call records "
                "still queued and the final checkpoint.", step,
                " (every rank agreed)" if self._agreed is not None else "")
            run_context.request_stop()

    def end(self, session):
        if not self._stop.saves_checkpoint:  # else the final checkpoint's listener does it
            self._stop.wind_down("training stopped on a signal and this process saves no "
                                 "checkpoint; closing the session")

    def final_checkpoint_listener(self):
        """A saving listener that tells the stop when the last checkpoint is on disk."""
        return _FinalCheckpoint(self._stop)


class _FinalCheckpoint(tf.compat.v1.train.CheckpointSaverListener):

    def __init__(self, stop):
        self._stop = stop

    def begin(self):
        self._stop.saves_checkpoint = True

    def end(self, session, global_step_value):
        self._stop.wind_down("the checkpoint at step %d and every host_call record up to it "
                             "are on disk; closing the session" % global_step_value)


class StopEvaluationOnSignalHook(tf.compat.v1.train.SessionRunHook):
    """Ends an evaluation after the run during which a signal arrived, without a result.

    Must come after the other hooks: its ``end()`` raises EvaluationInterrupted
    once theirs ran (the host_call records are drained), so the metrics of the
    partial evaluation are neither computed nor written.
    """

    def __init__(self, stop):
        self._stop = stop

    def after_run(self, run_context, run_values):
        if self._stop.signal is not None:
            run_context.request_stop()

    def end(self, session):
        if self._stop.signal is not None:
            self._stop.wind_down("evaluation stopped on a signal, without metrics; closing "
                                 "the session")
            raise EvaluationInterrupted()
