"""Rank layout and the per-process TensorFlow server of a data-parallel job.

Migrated scripts run one process per device and learn their place from
``RANK_SIZE`` / ``RANK_ID``.  This module turns that into TensorFlow's own
distributed runtime: one ``tf.distribute.Server`` per rank (job ``worker``,
task = rank) and a collective group made of all ranks, led by rank 0.

API used by the estimator (all cheap, all safe to call when single-process):

``rank_info()`` -> ``RankInfo(rank_size, rank_id, hosts)``
    Layout read from the environment (see below); ``hosts`` is ``()`` when
    ``rank_size == 1``.
``is_distributed()`` -> bool
    ``rank_size > 1``.  Everything else here is a no-op when False.
``is_writer_rank()`` -> bool
    True on rank 0 and in a single process: only that rank writes
    checkpoints and summaries.
``ensure_server()`` -> str or None
    Starts this rank's server once per process and returns its session
    target (``grpc://host:port``); None when single-process.
``session_config_for_rank(base_config=None)`` -> ConfigProto or None
    A copy of ``base_config`` with the collective group leader and a device
    filter keeping each session on its own task (and, under bfloat16 mixed
    precision, Grappler's fusions off: ``bf16_fusions``).  Returns
    ``base_config`` unchanged when single-process.
``local_rank_info()`` -> (local_rank_size, local_rank_id)
    Ranks on this host (the launcher's local rank where it publishes one).

Environment: ``RANK_SIZE`` / ``RANK_ID`` / ``NPU_BRIDGE_HOSTS`` (our launcher),
``TF_CONFIG``, Open MPI / PMI, Slurm or ``RANK_TABLE_FILE``; the sources and
their precedence are in ``cluster_sources``.  Unset: single process.
``NPU_BRIDGE_RANK_TIMEOUT``: seconds any wait for peers may last (default 300;
see ``rank_timeout``).
"""

import collections
import threading

from npu_bridge.distributed.cluster import (bf16_fusions, cluster_sources, devices, private_network,
                                           rank_timeout)

HOSTS_ENV = cluster_sources.HOSTS_ENV
JOB_NAME = "worker"
GROUP_LEADER = "/job:worker/replica:0/task:0"

RankInfo = collections.namedtuple("RankInfo", ["rank_size", "rank_id", "hosts"])

_lock = threading.Lock()
_server = None
_server_info = None


def rank_info():
    """Reads and checks the rank layout (``cluster_sources.discover``)."""
    layout = cluster_sources.discover()
    return RankInfo(layout.rank_size, layout.rank_id, layout.hosts)


def is_distributed():
    """True when more than one rank takes part."""
    return rank_info().rank_size > 1


def is_writer_rank():
    """True on the rank that owns checkpoints and summaries (rank 0)."""
    return rank_info().rank_id == 0


def local_rank_info():
    """(local_rank_size, local_rank_id): ranks on this host, as the launcher placed them."""
    layout = cluster_sources.discover()
    return layout.local_size, layout.local_rank


def task_device():
    """Device prefix of this rank's task, e.g. ``/job:worker/replica:0/task:1``."""
    return "/job:%s/replica:0/task:%d" % (JOB_NAME, rank_info().rank_id)


def _collective_settings(config):
    config.experimental.collective_group_leader = GROUP_LEADER
    return config


def session_config_for_rank(base_config=None, isolated=False):
    """Session ConfigProto for this rank (see module doc); never mutates base_config.

    ``isolated`` asks for ``isolate_session_state``: the server keeps the
    variables a session created after it ends, so a session that must start
    as a local one does (only from what its graph initialises or restores)
    needs it.
    """
    info = rank_info()
    if info.rank_size == 1:
        return base_config
    import tensorflow as tf
    config = tf.compat.v1.ConfigProto()
    if base_config is not None:
        config.CopyFrom(base_config)
    _collective_settings(config)
    if isolated:
        config.isolate_session_state = True
    own = "/job:%s/task:%d" % (JOB_NAME, info.rank_id)
    if own not in config.device_filters:
        del config.device_filters[:]
        config.device_filters.append(own)
    return bf16_fusions.keep_bf16_convolutions_unfused(config)


def ensure_server():
    """Starts this rank's server (once per process); returns its target or None."""
    global _server, _server_info
    info = rank_info()
    if info.rank_size == 1:
        return None
    with _lock:
        if _server is not None:
            if _server_info != info:
                raise RuntimeError(
                    "rank layout changed after the server started: was %r, now %r"
                    % (_server_info, info))
            return _server.target
        import tensorflow as tf
        cluster = tf.train.ClusterSpec({JOB_NAME: list(info.hosts)})
        config = _collective_settings(tf.compat.v1.ConfigProto())
        layout = cluster_sources.discover()
        devices.apply_rank_gpu(config, layout.local_rank, layout.local_size)
        _server = tf.distribute.Server(
            cluster, job_name=JOB_NAME, task_index=info.rank_id,
            protocol="grpc", config=config, start=True)
        _server_info = info
        private_network.log_listening(info.rank_id, info.hosts[info.rank_id])
        rank_timeout.wait_for_peers(info.hosts, info.rank_id)  # bounded: fails naming them
        return _server.target


def session_target():
    """Alias of ensure_server(), named for ``master=`` arguments."""
    return ensure_server()
