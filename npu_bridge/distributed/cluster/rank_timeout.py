"""How long a rank waits for its peers before it fails, and the wait at start-up.

TensorFlow's collective runtime waits forever for a peer that never comes
(a rank not started, a wrong address) or that stopped answering (a crashed or
wedged host). A job that hangs with no message is worse than one that fails,
so every wait on peers here is bounded:

* at start-up, after its own server is up, a rank connects to every peer's
  address and fails with the addresses it could not reach;
* every collective op gets the same bound as its completion timeout, so a
  rank that dies or hangs mid-training makes the others fail with
  DeadlineExceededError (and the launcher then stops the job).

The bound is ``NPU_BRIDGE_RANK_TIMEOUT`` seconds (default 300). A step that
legitimately keeps peers waiting longer than that (a huge checkpoint on rank 0)
needs a larger value.
"""

import math
import os
import socket
import time

TIMEOUT_ENV = "NPU_BRIDGE_RANK_TIMEOUT"
DEFAULT_TIMEOUT_SECONDS = 300.0


def rank_timeout_seconds():
    """The bound on any wait for peers, from ``NPU_BRIDGE_RANK_TIMEOUT``."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("%s must be a number of seconds; got %r." % (TIMEOUT_ENV, raw)) from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError("%s must be a positive finite number of seconds; got %r."
                         % (TIMEOUT_ENV, raw))
    return value


def _reachable(address, timeout):
    host, port = address.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for_peers(hosts, rank_id, timeout=None):
    """Return once every other rank's server accepts connections; raise after ``timeout``."""
    timeout = rank_timeout_seconds() if timeout is None else timeout
    deadline = time.monotonic() + timeout
    waiting = {rank: address for rank, address in enumerate(hosts) if rank != rank_id}
    while waiting:
        for rank, address in list(waiting.items()):
            if _reachable(address, min(1.0, timeout)):
                del waiting[rank]
        if not waiting:
            return
        if time.monotonic() >= deadline:
            raise RuntimeError(
                "rank %d could not reach rank(s) %s at %s within %g s (%s): are all "
                "RANK_SIZE=%d ranks started, and are the addresses right?"
                % (rank_id, sorted(waiting), ", ".join(waiting[r] for r in sorted(waiting)),
                   timeout, TIMEOUT_ENV, len(hosts)))
        time.sleep(0.2)
