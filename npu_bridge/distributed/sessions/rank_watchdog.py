"""Ends a rank whose training or evaluation run waits longer than the rank timeout.

When a peer dies or hangs (a crashed or wedged host, a SIGSTOP), the other
ranks wait in a collective of the current ``Session.run`` forever. TensorFlow
can time collectives out, but it starts a thread per timed execution that
sleeps the whole timeout, which per step would pile up thousands of threads.
So the bound is kept here instead, once per run: a watchdog thread notes when
each ``Session.run`` of training (or evaluation) starts, and when one has lasted longer than
``NPU_BRIDGE_RANK_TIMEOUT`` seconds (``rank_timeout``), it reports the peers'
addresses and ends the process with status 1. The launcher (or any scheduler)
then stops the rest of the job. Checkpoints are consistent cuts, so what was
saved stays usable.

A single training run (one device loop of iterations_per_loop steps) that
legitimately lasts longer than the timeout needs a larger
``NPU_BRIDGE_RANK_TIMEOUT``.
"""

import threading
import time

import tensorflow as tf

from npu_bridge.distributed.cluster import peer_give_up, rank_timeout, runtime

EXIT_STATUS = peer_give_up.EXIT_STATUS


class RankWatchdogHook(tf.compat.v1.train.SessionRunHook):
    """Exits the rank when one Session.run of training or evaluation outlasts the rank timeout."""

    def __init__(self, timeout=None, poll_secs=1.0):
        self._timeout = rank_timeout.rank_timeout_seconds() if timeout is None else timeout
        self._poll = min(poll_secs, self._timeout / 4.0)
        self._run_started = None
        self._stop = threading.Event()
        self._thread = None

    def after_create_session(self, session, coord):
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._watch, name="npu_bridge-rank-watchdog",
                                            daemon=True)
            self._thread.start()

    def before_run(self, run_context):
        self._run_started = time.monotonic()

    def after_run(self, run_context, run_values):
        self._run_started = None

    def end(self, session):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self._poll * 4)
            self._thread = None

    def _watch(self):
        while not self._stop.wait(self._poll):
            started = self._run_started
            if started is not None and time.monotonic() - started > self._timeout:
                self._give_up(time.monotonic() - started)

    def _give_up(self, waited):
        peer_give_up.exit_waiting_for_peers(waited, "a Session.run of training or evaluation")


def watchdog_hooks():
    """[RankWatchdogHook()] with ranks, [] in a single process."""
    return [RankWatchdogHook()] if runtime.is_distributed() else []
