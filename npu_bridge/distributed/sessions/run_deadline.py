"""A plain-Session script's run never waits on its peers longer than the rank timeout.

NPUEstimator bounds its runs with ``rank_watchdog``. A migrated script that
builds ``tf.compat.v1.Session()`` itself has no such hook: if a peer died,
stopped, or never runs a collective this rank runs (a group collective that
not every member reaches), ``Session.run`` waits forever. TensorFlow can put
a deadline on a whole run (``RunOptions.timeout_in_ms``; one timer per run,
unlike per-op collective timeouts, which start a thread per execution): when
it passes, the run's ops are cancelled and DeadlineExceededError is raised.

``session_target`` marks the sessions it sends to the rank's server (those
created with the default target) and this module gives each run of a marked
session, made from the main thread, the rank timeout as its deadline unless
the caller set one. Runs from other threads are left alone: QueueRunner
threads legitimately block on a full queue for as long as the main loop does
something else. A run that times out raises DeadlineExceededError with a
message naming the rank timeout and the peers.
"""

import threading

import tensorflow as tf
from tensorflow.core.protobuf import config_pb2
from npu_bridge.distributed.cluster import rank_timeout, runtime
from npu_bridge.tf_private.session import BaseSession

_MARK = "_npu_bridge_run_deadline_ms"
_ORIGINAL = "_npu_bridge_original_run"


def mark(session):
    """Bounds the main-thread runs of ``session`` by ``NPU_BRIDGE_RANK_TIMEOUT``."""
    setattr(session, _MARK, int(rank_timeout.rank_timeout_seconds() * 1000))


def _with_deadline(options, deadline_ms):
    bounded = config_pb2.RunOptions()
    if options is not None:
        bounded.CopyFrom(options)
    if bounded.timeout_in_ms:
        return options, False  # the caller's own deadline wins
    bounded.timeout_in_ms = deadline_ms
    return bounded, True


def _explained(error, deadline_ms):
    info = runtime.rank_info()
    peers = ", ".join("rank %d at %s" % (rank, host) for rank, host in enumerate(info.hosts)
                      if rank != info.rank_id)
    return type(error)(error.node_def, error.op, (
        "npu_bridge: rank %d: a Session.run lasted longer than %s=%g s; it was most likely "
        "waiting for a peer in a collective (a dead, stopped or hung rank, or a group "
        "collective that one of its members never ran). Peers: %s. TensorFlow said: %s"
        % (info.rank_id, rank_timeout.TIMEOUT_ENV, deadline_ms / 1000.0, peers,
           error.message)))


def install():
    """Wraps BaseSession.run once per process (marked sessions only are affected)."""
    base = BaseSession
    if hasattr(base, _ORIGINAL):
        return
    original = base.run

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        deadline_ms = getattr(self, _MARK, None)
        bounded = False
        if deadline_ms and threading.current_thread() is threading.main_thread():
            options, bounded = _with_deadline(options, deadline_ms)
        try:
            return original(self, fetches, feed_dict, options, run_metadata)
        except tf.errors.DeadlineExceededError as error:
            if not bounded:
                raise
            raise _explained(error, deadline_ms) from error

    run.__doc__ = original.__doc__
    setattr(base, _ORIGINAL, original)
    base.run = run


def uninstall():
    """Restores BaseSession.run (for tests)."""
    base = BaseSession
    original = base.__dict__.get(_ORIGINAL)
    if original is not None:
        base.run = original
        delattr(base, _ORIGINAL)
