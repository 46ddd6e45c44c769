"""Plain-Session scripts run as ranks: default-target sessions go to the rank's server.

A migrated script creates ``tf.compat.v1.Session(config=npu_config_proto(...))``
or ``MonitoredTrainingSession(...)`` with the default target ``''``.  A local
session cannot run collective ops that need peers: it waits forever at the
first all-reduce.  A ConfigProto cannot carry a target, so ``install()`` wraps
``BaseSession.__init__`` (which every Session class goes through) when
``RANK_SIZE > 1``:

* target ``''`` / None -> this rank's server (``runtime.ensure_server()``),
  config -> ``runtime.session_config_for_rank(config)`` (group leader, own-task
  device filter) with ``isolate_session_state`` so variables stay private to
  the session, as they are in a local session;
* target == this rank's server (NPUEstimator, explicit ``master=``) -> only the
  rank config is merged in (idempotent);
* any other target is left alone.

If the server cannot be had, session creation fails at once with an error
naming RANK_SIZE, instead of hanging later.  Runs of the sessions sent to the
rank's server are bounded by the rank timeout (``run_deadline``).
Single-process: nothing is touched.
"""

import logging
import os

from tensorflow.core.protobuf import config_pb2

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.sessions import run_deadline
from npu_bridge.tf_private.session import BaseSession

_log = logging.getLogger(__name__)
_ATTR = "_npu_bridge_original_init"


def _rank_size_env():
    try:
        return runtime.rank_info().rank_size
    except ValueError:
        pass  # a broken layout: runtime.rank_info() reports it where it is used
    try:
        return int(os.environ.get("RANK_SIZE", "1") or "1")
    except ValueError:
        return 1


def _rank_target(rank_size):
    try:
        return runtime.ensure_server()
    except Exception as exc:  # noqa: BLE001 - re-raised with what to do
        raise RuntimeError(
            "npu_bridge: RANK_SIZE=%d, so this session must run on the rank's "
            "tf.distribute.Server, which could not be started: %s. Start the ranks "
            "with `python -m npu_bridge.launch -n N script.py` (or set RANK_ID and "
            "NPU_BRIDGE_HOSTS for every rank), or unset RANK_SIZE to run one process."
            % (rank_size, exc)) from exc


def _rank_config(config, isolate):
    if config is not None and not isinstance(config, config_pb2.ConfigProto):
        return config  # BaseSession raises its own TypeError
    return runtime.session_config_for_rank(config, isolated=isolate)


def _started_target():
    server = runtime._server  # pylint: disable=protected-access  (never start one here)
    return None if server is None else server.target


def install():
    """Wraps BaseSession.__init__ when RANK_SIZE > 1 (once); returns True if active."""
    rank_size = _rank_size_env()
    if rank_size <= 1:
        return False
    base = BaseSession
    if hasattr(base, _ATTR):
        return True
    original = base.__init__

    def __init__(self, target="", graph=None, config=None):
        bounded = target in ("", None)
        if bounded:
            self._session = None  # so __del__ stays quiet if we raise
            target = _rank_target(rank_size)
            config = _rank_config(config, isolate=True)
        elif target == _started_target():
            config = _rank_config(config, isolate=False)
        original(self, target, graph, config)
        if bounded:
            run_deadline.mark(self)

    __init__.__doc__ = original.__doc__
    setattr(base, _ATTR, original)
    base.__init__ = __init__
    run_deadline.install()
    _log.warning("npu_bridge: RANK_SIZE=%d: sessions with the default target now run "
                 "on this rank's tf.distribute.Server with the collective config",
                 rank_size)
    return True


def uninstall():
    """Restores BaseSession.__init__ (for tests)."""
    base = BaseSession
    original = base.__dict__.get(_ATTR)
    if original is not None:
        base.__init__ = original
        delattr(base, _ATTR)
    run_deadline.uninstall()
