"""Rank layouts from each cluster launcher's environment (in-process, plain dicts)."""
import json
import logging

import pytest

from npu_bridge.distributed.cluster import cluster_sources
from npu_bridge.common import log_once
from npu_bridge.distributed.cluster.cluster_sources import discover, export_rank_env


@pytest.fixture(autouse=True)
def fresh_log():
    log_once.forget([cluster_sources.LAYOUT_LOGGED])
    yield
    log_once.forget([cluster_sources.LAYOUT_LOGGED])


def test_nothing_set_is_one_process():
    assert discover({}) == cluster_sources.SINGLE_PROCESS
    assert discover({"SLURM_PROCID": "0", "SLURM_NTASKS": "4"}).rank_size == 1  # sbatch shell


def test_slurm_compressed_nodelist_and_uneven_tasks():
    env = {"SLURM_PROCID": "3", "SLURM_STEP_NUM_TASKS": "5", "SLURM_LOCALID": "1",
           "SLURM_STEP_NODELIST": "node[01-02],gpu7", "SLURM_STEP_TASKS_PER_NODE": "2(x2),1"}
    layout = discover(env)
    assert layout.hosts == ("node01:24600", "node01:24601", "node02:24600", "node02:24601",
                            "gpu7:24600")
    assert (layout.rank_size, layout.rank_id, layout.local_rank, layout.local_size) == (5, 3, 1, 2)
    assert layout.source.startswith("Slurm")
    env.update(NPU_BRIDGE_BASE_PORT="31000", SLURM_PROCID="4", SLURM_LOCALID="0")
    assert discover(env).hosts[4] == "gpu7:31000" and discover(env).local_size == 1


def test_slurm_ip_range_and_cyclic_distribution_refused():
    env = {"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2", "SLURM_LOCALID": "0",
           "SLURM_STEP_NODELIST": "10.9.0.[1-2]", "SLURM_STEP_TASKS_PER_NODE": "1(x2)"}
    assert discover(env).hosts == ("10.9.0.1:24600", "10.9.0.2:24600")
    env.update(SLURM_STEP_NODELIST="n1", SLURM_STEP_TASKS_PER_NODE="2", SLURM_LOCALID="0")
    with pytest.raises(ValueError, match="SLURM_LOCALID=0.*--distribution=block"):
        discover(env)


def test_open_mpi_with_nodes_env_and_with_slurm_allocation():
    env = {"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4",
           "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "2",
           "NPU_BRIDGE_NODES": "a,b", "NPU_BRIDGE_BASE_PORT": "30000"}
    layout = discover(env)
    assert layout.hosts == ("a:30000", "a:30001", "b:30000", "b:30001")
    assert (layout.rank_id, layout.local_rank, layout.local_size) == (3, 1, 2)
    del env["NPU_BRIDGE_NODES"]
    with pytest.raises(ValueError, match="set NPU_BRIDGE_NODES"):
        discover(env)
    env["SLURM_JOB_NODELIST"] = "c[7-8]"  # mpirun inside an allocation
    assert discover(env).hosts == ("c7:30000", "c7:30001", "c8:30000", "c8:30001")


def test_pmi_all_local_and_bad_mapping():
    env = {"PMI_RANK": "1", "PMI_SIZE": "2", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"}
    layout = discover(env)
    assert layout.hosts == ("127.0.0.1:24600", "127.0.0.1:24601")
    assert layout.source.startswith("PMI") and layout.local_rank == 1
    slurm_pmi = {"PMI_RANK": "1", "PMI_SIZE": "2", "SLURM_PROCID": "1", "SLURM_LOCALID": "0",
                 "SLURM_STEP_NUM_TASKS": "2", "SLURM_STEP_NODELIST": "n[1-2]"}
    assert discover(slurm_pmi).hosts == ("n1:24600", "n2:24600")  # srun --mpi=pmi2
    env.update(PMI_SIZE="4", MPI_LOCALRANKID="0", NPU_BRIDGE_NODES="x,y")
    with pytest.raises(ValueError, match="--map-by slot"):
        discover(env)


def test_tf_config_alone_chief_first_and_ps_jobs_left_alone():
    cluster = {"chief": ["c:1"], "worker": ["w:1", "w:2"]}
    env = {"TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 1}})}
    layout = discover(env)
    assert (layout.rank_size, layout.rank_id, layout.hosts) == (3, 2, ("c:1", "w:1", "w:2"))
    cluster["ps"] = ["p:1"]
    env = {"TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 1}})}
    assert discover(env).rank_size == 1


def _write(tmp_path, table):
    path = tmp_path / "rank_table.json"
    path.write_text(json.dumps(table))
    return str(path)


def test_rank_table_server_list_and_group_list(tmp_path):
    table = {"version": "1.0", "server_count": "2", "status": "completed", "server_list": [
        {"server_id": "10.0.0.1", "device": [
            {"device_id": "0", "device_ip": "192.168.1.1", "rank_id": "0"},
            {"device_id": "1", "device_ip": "192.168.1.2", "rank_id": "1"}]},
        {"server_id": "10.0.0.2", "device": [
            {"device_id": "0", "device_ip": "192.168.2.1", "rank_id": "2"},
            {"device_id": "1", "device_ip": "192.168.2.2", "rank_id": "3"}]}]}
    env = {"RANK_SIZE": "4", "RANK_ID": "3", "RANK_TABLE_FILE": _write(tmp_path, table)}
    layout = discover(env)
    assert layout.hosts == ("10.0.0.1:24600", "10.0.0.1:24601", "10.0.0.2:24600",
                            "10.0.0.2:24601")
    assert (layout.local_rank, layout.local_size, layout.source) == (1, 2, "RANK_TABLE_FILE")
    old = {"group_count": "1", "group_list": [{"instance_list": [
        {"rank_id": "1", "server_id": "h2", "devices": [{"device_id": "0"}]},
        {"rank_id": "0", "server_id": "h1", "devices": [{"device_id": "0"}]}]}]}
    env = {"RANK_SIZE": "2", "RANK_ID": "0", "RANK_TABLE_FILE": _write(tmp_path, old)}
    assert discover(env).hosts == ("h1:24600", "h2:24600")
    env["RANK_SIZE"] = "3"
    with pytest.raises(ValueError, match="lists 2 hosts"):
        discover(env)
    env["RANK_TABLE_FILE"] = str(tmp_path / "missing.json")
    with pytest.raises(ValueError, match="RANK_TABLE_FILE .*missing.json"):
        discover(env)


def test_precedence_is_logged_once(caplog):
    env = {"RANK_SIZE": "2", "RANK_ID": "1", "NPU_BRIDGE_HOSTS": "h:1,h:2",
           "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "8", "SLURM_STEP_NODELIST": "n[1-8]",
           "OMPI_COMM_WORLD_SIZE": "3", "OMPI_COMM_WORLD_RANK": "0"}
    with caplog.at_level(logging.WARNING, logger=cluster_sources.__name__):
        for _ in range(3):
            assert discover(env)[:3] == (2, 1, ("h:1", "h:2"))
        del env["RANK_SIZE"]
        assert discover(env).source.startswith("Open MPI")  # MPI before Slurm
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines
    assert "rank 1 of 2" in lines[0] and "from NPU_BRIDGE_HOSTS" in lines[0]
    assert "ignored: Open MPI, Slurm" in lines[0]


def test_export_rank_env_for_scripts_that_read_rank_size():
    env = {"SLURM_PROCID": "1", "SLURM_STEP_NUM_TASKS": "2", "SLURM_LOCALID": "1",
           "SLURM_STEP_NODELIST": "n1", "SLURM_STEP_TASKS_PER_NODE": "2"}
    export_rank_env(env)
    assert (env["RANK_SIZE"], env["RANK_ID"], env["DEVICE_ID"]) == ("2", "1", "1")
    assert env["NPU_BRIDGE_HOSTS"] == "n1:24600,n1:24601"
    assert discover(env)[:3] == (2, 1, ("n1:24600", "n1:24601"))
    mine = {"RANK_SIZE": "1", "SLURM_PROCID": "0", "SLURM_STEP_NUM_TASKS": "2"}
    assert export_rank_env(mine) is None and mine["RANK_SIZE"] == "1"
