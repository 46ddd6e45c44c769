"""Where a rank learns its place: our own variables, TF_CONFIG, MPI, Slurm, a rank table.

A rank needs three things: how many ranks there are, which one it is, and the
``host:port`` of every rank (TensorFlow's servers connect to each other by
address).  Cluster launchers publish the first two, and the hosts, in their
own environment variables; this module reads each of them and turns it into one
``ClusterLayout``.  ``discover()`` tries the sources in this order and takes
the first that applies (the others are logged as ignored, once per process):

1. ``RANK_SIZE`` set: our launcher, hand-started ranks, the original's scripts.
   Rank from ``RANK_ID`` (else TF_CONFIG's task); addresses from
   ``NPU_BRIDGE_HOSTS``, else ``RANK_TABLE_FILE``, else TF_CONFIG's cluster.
2. ``TF_CONFIG`` with a ``chief``/``worker`` cluster (Kubeflow's TFJob).
3. Open MPI (``OMPI_COMM_WORLD_RANK``/``_SIZE``/``_LOCAL_RANK``/``_LOCAL_SIZE``)
   or a PMI launcher (``PMI_RANK``/``PMI_SIZE``, ``MPI_LOCALRANKID``/
   ``MPI_LOCALNRANKS``: MPICH, Intel MPI).  MPI does not publish the hosts:
   ``NPU_BRIDGE_NODES`` lists them (else Slurm's node list inside an
   allocation, else 127.0.0.1 when every rank is local).  Ranks are placed
   ``--map-by slot`` (node i holds ranks i*L .. i*L+L-1, L = local size).
4. Slurm steps started by srun (``SLURM_PROCID``, ``SLURM_STEP_NUM_TASKS``,
   ``SLURM_LOCALID``, ``SLURM_STEP_NODELIST`` with compressed ranges such as
   ``node[01-04]``, ``SLURM_STEP_TASKS_PER_NODE`` such as ``2(x4)``), decoded
   with TensorFlow's own Slurm helpers; block distribution (srun's default).

MPI, Slurm and rank tables give no ports: rank r listens on
``NPU_BRIDGE_BASE_PORT`` (default 24600) + its local rank, so ranks on one host
never collide and every rank computes every other rank's port alike.
Nothing found: one process.
"""

import collections
import json
import logging
import os

from npu_bridge.common.log_once import first_time

HOSTS_ENV = "NPU_BRIDGE_HOSTS"
NODES_ENV = "NPU_BRIDGE_NODES"
BASE_PORT_ENV = "NPU_BRIDGE_BASE_PORT"
DEFAULT_BASE_PORT = 24600

_log = logging.getLogger(__name__)

ClusterLayout = collections.namedtuple(
    "ClusterLayout", ["rank_size", "rank_id", "hosts", "local_rank", "local_size", "source"])

SINGLE_PROCESS = ClusterLayout(1, 0, (), 0, 1, "single process")

# every variable a source reads, by prefix (to start a clean child process)
VARIABLE_PREFIXES = ("RANK_SIZE", "RANK_ID", "RANK_TABLE_FILE", "TF_CONFIG", HOSTS_ENV,
                     NODES_ENV, BASE_PORT_ENV, "OMPI_COMM_WORLD_", "PMI_", "MPI_LOCAL", "SLURM_")

# name shown in logs -> variable whose presence means "this source is here"
_MARKERS = (("RANK_SIZE", "RANK_SIZE"), ("TF_CONFIG", "TF_CONFIG"),
            ("Open MPI", "OMPI_COMM_WORLD_SIZE"), ("PMI", "PMI_SIZE"),
            ("Slurm", "SLURM_STEP_NUM_TASKS"))


def _int(env, name, default=None):
    raw = env.get(name)
    if raw in (None, ""):
        if default is None:
            raise ValueError("%s must be set (an integer), it is missing" % name)
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError("%s must be an integer, got %r" % (name, raw)) from None


def base_port(env):
    port = _int(env, BASE_PORT_ENV, DEFAULT_BASE_PORT)
    if not 0 < port < 65536:
        raise ValueError("%s must be a TCP port in (0, 65536), got %d" % (BASE_PORT_ENV, port))
    return port


def _local_position(hosts, rank_id):
    """(local_rank, local_size) among ranks whose host name equals ours."""
    names = [h.rsplit(":", 1)[0] for h in hosts]
    local = [i for i, name in enumerate(names) if name == names[rank_id]]
    return local.index(rank_id), len(local)


def _checked(rank_size, rank_id, hosts, source, local=None):
    if rank_size < 1:
        raise ValueError("%s: rank count must be >= 1, got %d" % (source, rank_size))
    if not 0 <= rank_id < rank_size:
        raise ValueError("%s: rank must be in [0, %d), got %d" % (source, rank_size, rank_id))
    if rank_size == 1:
        return SINGLE_PROCESS._replace(source=source)
    hosts = tuple(hosts)
    if len(hosts) != rank_size:
        raise ValueError("%s lists %d hosts %r but there are %d ranks; expected one "
                         "host:port per rank" % (source, len(hosts), list(hosts), rank_size))
    for host in hosts:
        if ":" not in host:
            raise ValueError("%s entry %r is not host:port" % (source, host))
    local_rank, local_size = local if local else _local_position(hosts, rank_id)
    return ClusterLayout(rank_size, rank_id, hosts, local_rank, local_size, source)


# -- TF_CONFIG ---------------------------------------------------------------

def tf_config(env):
    raw = env.get("TF_CONFIG", "")
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ValueError("TF_CONFIG is not valid JSON (%s): %r" % (exc, raw)) from None


def _tf_config_hosts(config):
    cluster = config.get("cluster") or {}
    return list(cluster.get("chief", [])) + list(cluster.get("worker", []))


def _tf_config_rank(config):
    task = config.get("task") or {}
    if not task:
        return None
    index = int(task.get("index", 0))
    if task.get("type") == "worker" and (config.get("cluster") or {}).get("chief"):
        index += len(config["cluster"]["chief"])
    return index


def from_tf_config(env):
    """Kubeflow TFJob: every replica is a rank, chief first, then workers."""
    config = tf_config(env)
    hosts = _tf_config_hosts(config)
    task_type = (config.get("task") or {}).get("type")
    if not hosts or task_type not in ("chief", "worker"):
        return None
    if (config.get("cluster") or {}).get("ps"):
        return None  # a parameter-server job is the stock Estimator's business
    return _checked(len(hosts), _tf_config_rank(config), hosts, "TF_CONFIG")


# -- RANK_TABLE_FILE (the original adapter's JSON) ------------------------------

def rank_table_hosts(path, port):
    """``host:port`` per rank from a rank table (``server_list`` or ``group_list`` form).

    ``server_id`` is the host's address; ``device_ip`` is the NPU's own network
    port, which a CPU/GPU host does not have, so it is not used.  The n-th device
    of a server listens on ``port + n``.
    """
    try:
        with open(path) as f:
            table = json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError("RANK_TABLE_FILE %r could not be read as JSON: %s" % (path, exc)) from None
    by_rank = {}
    if "server_list" in table:
        for server in table["server_list"]:
            for n, device in enumerate(server.get("device", [])):
                by_rank[int(device["rank_id"])] = "%s:%d" % (server["server_id"], port + n)
    elif "group_list" in table:
        for group in table["group_list"]:
            per_server = collections.Counter()
            for instance in group.get("instance_list", []):
                server = instance["server_id"]
                by_rank[int(instance["rank_id"])] = "%s:%d" % (server, port + per_server[server])
                per_server[server] += 1
    else:
        raise ValueError("RANK_TABLE_FILE %r has neither server_list nor group_list" % path)
    if sorted(by_rank) != list(range(len(by_rank))):
        raise ValueError("RANK_TABLE_FILE %r: rank_ids must be 0..N-1, got %s"
                         % (path, sorted(by_rank)))
    return [by_rank[r] for r in range(len(by_rank))]


# -- RANK_SIZE / RANK_ID (ours and the original's) -------------------------------

def from_rank_env(env):
    if env.get("RANK_SIZE", "") == "":
        return None
    rank_size = _int(env, "RANK_SIZE")
    if rank_size < 1:
        raise ValueError("RANK_SIZE must be >= 1, got %d" % rank_size)
    if rank_size == 1:
        return SINGLE_PROCESS._replace(source="RANK_SIZE")
    config = tf_config(env)
    if env.get("RANK_ID", "") != "":
        rank_id = _int(env, "RANK_ID")
    else:
        rank_id = _tf_config_rank(config)
        if rank_id is None:
            raise ValueError("RANK_SIZE=%d but RANK_ID is not set (and TF_CONFIG has no task)"
                             % rank_size)
    if not 0 <= rank_id < rank_size:
        raise ValueError("RANK_ID must be in [0, %d) for RANK_SIZE=%d, got %d"
                         % (rank_size, rank_size, rank_id))
    raw_hosts = env.get(HOSTS_ENV, "").strip()
    if raw_hosts:
        hosts, source = [h.strip() for h in raw_hosts.split(",") if h.strip()], HOSTS_ENV
    elif env.get("RANK_TABLE_FILE"):
        hosts, source = rank_table_hosts(env["RANK_TABLE_FILE"], base_port(env)), "RANK_TABLE_FILE"
    else:
        hosts, source = _tf_config_hosts(config), "TF_CONFIG cluster (chief+worker)"
        if not hosts:
            raise ValueError(
                "RANK_SIZE=%d needs the rank addresses: set %s to comma-separated "
                "host:port (one per rank), RANK_TABLE_FILE, or TF_CONFIG with a worker list"
                % (rank_size, HOSTS_ENV))
    return _checked(rank_size, rank_id, hosts, source)


# -- MPI ---------------------------------------------------------------------------

_MPI_VARS = {  # family -> (rank, size, local rank, local size)
    "Open MPI": ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                 "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    "PMI": ("PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
}


def _slurm_helpers():
    """TensorFlow's Slurm decoders, imported only when Slurm is read: the launcher,
    which imports this module, then starts without TensorFlow (and single-threaded)."""
    from npu_bridge.tf_private import distribute
    return distribute


def _slurm_nodes(env):
    raw = env.get("SLURM_STEP_NODELIST") or env.get("SLURM_JOB_NODELIST") or ""
    return _slurm_helpers().expand_hostlist(raw) if raw else []


def from_mpi(env):
    for family, (rank_var, size_var, lrank_var, lsize_var) in _MPI_VARS.items():
        if env.get(size_var, "") == "":
            continue
        if (family == "PMI" and env.get(lsize_var, "") == ""
                and env.get("SLURM_STEP_NUM_TASKS", "") != ""):
            continue  # srun's own PMI (--mpi=pmi2): Slurm's variables say more
        size, rank = _int(env, size_var), _int(env, rank_var)
        local_size = _int(env, lsize_var, size)
        local_rank = _int(env, lrank_var, rank if local_size == size else None)
        source = "%s (%s)" % (family, size_var)
        if size == 1:
            return SINGLE_PROCESS._replace(source=source)
        nodes = [n.strip() for n in env.get(NODES_ENV, "").split(",") if n.strip()]
        if not nodes:
            nodes = _slurm_nodes(env)
        if not nodes and local_size == size:
            nodes = ["127.0.0.1"]
        if not nodes:
            raise ValueError(
                "%s: %d ranks on several hosts (local size %d) but MPI does not publish "
                "the hosts: set %s to the comma-separated node names in mpirun's order"
                % (source, size, local_size, NODES_ENV))
        if rank % local_size != local_rank or len(nodes) * local_size < size:
            raise ValueError(
                "%s: expected ranks placed --map-by slot with %d per node on %d nodes %r, "
                "but rank %d has local rank %d" % (source, local_size, len(nodes), nodes,
                                                   rank, local_rank))
        port = base_port(env)
        hosts = ["%s:%d" % (nodes[r // local_size], port + r % local_size) for r in range(size)]
        return _checked(size, rank, hosts, source, (local_rank, local_size))
    return None


# -- Slurm -------------------------------------------------------------------------

def from_slurm(env):
    """An srun step.  sbatch's batch shell (no SLURM_STEP_NUM_TASKS) is one process."""
    if env.get("SLURM_PROCID", "") == "" or env.get("SLURM_STEP_NUM_TASKS", "") == "":
        return None
    rank = _int(env, "SLURM_PROCID")
    size = _int(env, "SLURM_STEP_NUM_TASKS")
    source = "Slurm (SLURM_PROCID)"
    if size == 1:
        return SINGLE_PROCESS._replace(source=source)
    nodes = _slurm_nodes(env)
    if not nodes:
        raise ValueError("Slurm: SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST) must name the "
                         "nodes of a %d-task step, it is missing" % size)
    raw_tasks = env.get("SLURM_STEP_TASKS_PER_NODE") or env.get("SLURM_TASKS_PER_NODE")
    if raw_tasks:
        per_node = _slurm_helpers().expand_tasks_per_node(raw_tasks)
    else:
        per_node = [size // len(nodes) + (i < size % len(nodes)) for i in range(len(nodes))]
    if len(per_node) != len(nodes) or sum(per_node) != size:
        raise ValueError("Slurm: tasks per node %r do not add up to %d tasks on nodes %r"
                         % (per_node, size, nodes))
    port = base_port(env)
    hosts, owner = [], []
    for node, count in zip(nodes, per_node):
        hosts += ["%s:%d" % (node, port + i) for i in range(count)]
        owner += [(i, count) for i in range(count)]
    local_rank, local_size = owner[rank]
    if env.get("SLURM_LOCALID", "") != "" and _int(env, "SLURM_LOCALID") != local_rank:
        raise ValueError("Slurm: rank %d should be local task %d of its node under block "
                         "distribution, but SLURM_LOCALID=%s; run srun with "
                         "--distribution=block" % (rank, local_rank, env["SLURM_LOCALID"]))
    return _checked(size, rank, hosts, source, (local_rank, local_size))


# -- precedence ----------------------------------------------------------------------

# in precedence order: (reader, names of the launchers it covers)
SOURCES = ((from_rank_env, ("RANK_SIZE",)), (from_tf_config, ("TF_CONFIG",)),
           (from_mpi, ("Open MPI", "PMI")), (from_slurm, ("Slurm",)))

# The first multi-rank layout of the process is logged, once (``log_once`` key).
LAYOUT_LOGGED = "npu_bridge.cluster_layout"


def discover(env=None):
    """The layout from the first source that applies (see module doc); logs it once."""
    env = os.environ if env is None else env
    for source, names in SOURCES:
        layout = source(env)
        if layout is not None:
            break
    else:
        return SINGLE_PROCESS
    if layout.rank_size > 1 and first_time([LAYOUT_LOGGED]):
        ignored = [name for name, var in _MARKERS
                   if env.get(var, "") != "" and name not in names]
        _log.warning("npu_bridge: rank %d of %d (local %d of %d) from %s; hosts %s%s",
                     layout.rank_id, layout.rank_size, layout.local_rank, layout.local_size,
                     layout.source, ",".join(layout.hosts),
                     "; also present, ignored: %s" % ", ".join(ignored) if ignored else "")
    return layout


def export_rank_env(env=None):
    """Sets RANK_SIZE, RANK_ID, DEVICE_ID and NPU_BRIDGE_HOSTS from a cluster source.

    Only when RANK_SIZE is unset: migrated scripts read ``int(os.getenv('RANK_SIZE'))``
    themselves, and under srun or mpirun nobody set it.  DEVICE_ID is the local
    rank, as on a host of NPUs.  Returns the layout.
    """
    env = os.environ if env is None else env
    if env.get("RANK_SIZE", "") != "":
        return None
    layout = discover(env)
    if layout.rank_size > 1:
        env["RANK_SIZE"] = str(layout.rank_size)
        env["RANK_ID"] = str(layout.rank_id)
        env.setdefault("DEVICE_ID", str(layout.local_rank))
        env[HOSTS_ENV] = ",".join(layout.hosts)
    return layout
