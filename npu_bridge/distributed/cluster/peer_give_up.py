"""A rank that has waited on its peers beyond every bound ends itself, naming them.

TensorFlow bounds a collective with its completion timeout and a run with the
session's operation timeout, but not every wait honours them: with a peer
stopped (SIGSTOP, a wedged host) a run on a rank's server was seen waiting in
the master for a notification that no timeout fires, for good (2 of 4 tries of
``tests/test_rank_timeouts.py``'s stopped-leader test). A hung rank is worse
than a failed one: the launcher or scheduler stops the whole job when one rank
exits, and checkpoints are consistent cuts, so nothing saved is lost.

``exit_after(seconds, doing)`` wraps such a wait: if it has not ended
``seconds`` later, ``exit_waiting_for_peers`` says what the rank was doing, the
bound and the peers' addresses, and ends the process with ``EXIT_STATUS``.
``rank_watchdog`` ends ranks the same way when a training run outlasts the
rank timeout.
"""

import contextlib
import os
import sys
import threading
import time

from npu_bridge.distributed.cluster import rank_timeout, runtime

EXIT_STATUS = 1


def exit_waiting_for_peers(waited, doing):
    """Say that ``doing`` waited ``waited`` seconds for the peers, then end the process."""
    info = runtime.rank_info()
    peers = ["rank %d at %s" % (rank, host) for rank, host in enumerate(info.hosts)
             if rank != info.rank_id]
    sys.stderr.write(
        "npu_bridge: rank %d: %s has waited %.0f s for its peers (%s=%g); a peer is dead "
        "or hung (%s). Exiting so the job can be stopped.\n"
        % (info.rank_id, doing, waited, rank_timeout.TIMEOUT_ENV,
           rank_timeout.rank_timeout_seconds(), ", ".join(peers)))
    sys.stderr.flush()
    os._exit(EXIT_STATUS)  # pylint: disable=protected-access


@contextlib.contextmanager
def exit_after(seconds, doing):
    """Within the block, the process ends (``exit_waiting_for_peers``) after ``seconds``."""
    started = time.monotonic()
    timer = threading.Timer(
        seconds, lambda: exit_waiting_for_peers(time.monotonic() - started, doing))
    timer.name = "npu_bridge-peer-give-up"
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
