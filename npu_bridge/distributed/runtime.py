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
    filter keeping each session on its own task.  Returns ``base_config``
    unchanged when single-process.
``local_rank_info()`` -> (local_rank_size, local_rank_id)
    Ranks sharing this host name.

Environment:
  ``RANK_SIZE``        number of ranks; unset or 1 means single-process.
  ``RANK_ID``          this rank, 0 <= RANK_ID < RANK_SIZE (falls back to the
                       task index of ``TF_CONFIG``).
  ``NPU_BRIDGE_HOSTS`` comma-separated ``host:port`` of every rank, in rank
                       order.  Without it, the ``chief`` + ``worker`` lists of
                       ``TF_CONFIG``'s cluster are used.
  ``NPU_BRIDGE_RANK_TIMEOUT`` seconds any wait for peers may last (default
                       300; see ``rank_timeout``).
"""

import collections
import json
import os
import threading

from npu_bridge.distributed import rank_timeout

HOSTS_ENV = "NPU_BRIDGE_HOSTS"
JOB_NAME = "worker"
GROUP_LEADER = "/job:worker/replica:0/task:0"

RankInfo = collections.namedtuple("RankInfo", ["rank_size", "rank_id", "hosts"])

_lock = threading.Lock()
_server = None
_server_info = None


def _int_env(name, value):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(
            "%s must be an integer, got %r" % (name, value)) from None


def _tf_config():
    raw = os.environ.get("TF_CONFIG", "")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ValueError("TF_CONFIG is not valid JSON (%s): %r" % (exc, raw)) from None


def _tf_config_hosts(tf_config):
    cluster = tf_config.get("cluster") or {}
    return list(cluster.get("chief", [])) + list(cluster.get("worker", []))


def _tf_config_rank(tf_config):
    task = tf_config.get("task") or {}
    if not task:
        return None
    index = int(task.get("index", 0))
    if task.get("type") == "worker" and (tf_config.get("cluster") or {}).get("chief"):
        index += len(tf_config["cluster"]["chief"])
    return index


def rank_info():
    """Reads and checks the rank layout from the environment."""
    rank_size = _int_env("RANK_SIZE", os.environ.get("RANK_SIZE", "1") or "1")
    if rank_size < 1:
        raise ValueError("RANK_SIZE must be >= 1, got %d" % rank_size)
    if rank_size == 1:
        return RankInfo(1, 0, ())
    tf_config = _tf_config()
    raw_rank = os.environ.get("RANK_ID")
    if raw_rank not in (None, ""):
        rank_id = _int_env("RANK_ID", raw_rank)
    else:
        rank_id = _tf_config_rank(tf_config)
        if rank_id is None:
            raise ValueError(
                "RANK_SIZE=%d but RANK_ID is not set (and TF_CONFIG has no task)"
                % rank_size)
    if not 0 <= rank_id < rank_size:
        raise ValueError("RANK_ID must be in [0, %d) for RANK_SIZE=%d, got %d"
                         % (rank_size, rank_size, rank_id))
    raw_hosts = os.environ.get(HOSTS_ENV, "").strip()
    if raw_hosts:
        hosts, source = [h.strip() for h in raw_hosts.split(",") if h.strip()], HOSTS_ENV
    else:
        hosts, source = _tf_config_hosts(tf_config), "TF_CONFIG cluster (chief+worker)"
        if not hosts:
            raise ValueError(
                "RANK_SIZE=%d needs the rank addresses: set %s to comma-separated "
                "host:port (one per rank) or TF_CONFIG with a worker list"
                % (rank_size, HOSTS_ENV))
    if len(hosts) != rank_size:
        raise ValueError("%s lists %d hosts %r but RANK_SIZE=%d; expected one "
                         "host:port per rank" % (source, len(hosts), hosts, rank_size))
    for host in hosts:
        if ":" not in host:
            raise ValueError("%s entry %r is not host:port" % (source, host))
    return RankInfo(rank_size, rank_id, tuple(hosts))


def is_distributed():
    """True when more than one rank takes part."""
    return rank_info().rank_size > 1


def is_writer_rank():
    """True on the rank that owns checkpoints and summaries (rank 0)."""
    return rank_info().rank_id == 0


def local_rank_info():
    """(local_rank_size, local_rank_id): ranks whose host name equals ours."""
    info = rank_info()
    if info.rank_size == 1:
        return 1, 0
    names = [h.rsplit(":", 1)[0] for h in info.hosts]
    mine = names[info.rank_id]
    local = [i for i, name in enumerate(names) if name == mine]
    return len(local), local.index(info.rank_id)


def task_device():
    """Device prefix of this rank's task, e.g. ``/job:worker/replica:0/task:1``."""
    return "/job:%s/replica:0/task:%d" % (JOB_NAME, rank_info().rank_id)


def _collective_settings(config):
    config.experimental.collective_group_leader = GROUP_LEADER
    return config


def session_config_for_rank(base_config=None):
    """Session ConfigProto for this rank (see module doc); never mutates base_config."""
    info = rank_info()
    if info.rank_size == 1:
        return base_config
    import tensorflow as tf
    config = tf.compat.v1.ConfigProto()
    if base_config is not None:
        config.CopyFrom(base_config)
    _collective_settings(config)
    own = "/job:%s/task:%d" % (JOB_NAME, info.rank_id)
    if own not in config.device_filters:
        del config.device_filters[:]
        config.device_filters.append(own)
    return config


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
        _server = tf.distribute.Server(
            cluster, job_name=JOB_NAME, task_index=info.rank_id,
            protocol="grpc", config=config, start=True)
        _server_info = info
        rank_timeout.wait_for_peers(info.hosts, info.rank_id)  # bounded: fails naming them
        return _server.target


def session_target():
    """Alias of ensure_server(), named for ``master=`` arguments."""
    return ensure_server()
