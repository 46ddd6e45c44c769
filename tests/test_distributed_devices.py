"""One GPU per rank and the collective hint: unit level, then what two real ranks were told.

No GPU exists on the machines this runs on: the real run checks the GPU index
each rank's server was given and that collectives ask for ring on CPU.
"""
import pytest
import tensorflow as tf

from distributed_util import free_port_run, run_ranks
from npu_bridge.distributed.cluster import devices
from npu_bridge.launch import rank_env


def test_local_rank_to_gpu():
    assert [devices.gpu_for_local_rank(r, 4, 4) for r in range(4)] == [0, 1, 2, 3]
    assert [devices.gpu_for_local_rank(r, 4, 2) for r in range(4)] == [0, 1, 0, 1]
    assert devices.gpu_for_local_rank(1, 2, 0) is None
    with pytest.raises(ValueError, match=r"local_rank must be in \[0, 2\), got 2"):
        devices.gpu_for_local_rank(2, 2, 4)


def test_visible_gpu_count_from_cuda_visible_devices():
    assert devices.visible_gpu_count({"CUDA_VISIBLE_DEVICES": "0,1,2"}) == 3
    assert devices.visible_gpu_count({"CUDA_VISIBLE_DEVICES": "5"}) == 1
    assert devices.visible_gpu_count({"CUDA_VISIBLE_DEVICES": ""}) == 0
    assert devices.visible_gpu_count({"CUDA_VISIBLE_DEVICES": "-1"}) == 0
    assert devices.visible_gpu_count({}) == len(tf.config.list_physical_devices("GPU"))


def test_server_config_gets_the_rank_gpu():
    config = tf.compat.v1.ConfigProto()
    assert devices.apply_rank_gpu(config, 3, 4, {"CUDA_VISIBLE_DEVICES": "4,5,6,7"}) == 3
    assert config.gpu_options.visible_device_list == "3"
    config = tf.compat.v1.ConfigProto()
    assert devices.apply_rank_gpu(config, 1, 2, {"CUDA_VISIBLE_DEVICES": ""}) is None
    assert config.gpu_options.visible_device_list == ""


def test_hint_nccl_on_gpu_ring_on_cpu():
    assert devices.communication_hint(True) == "nccl"
    assert devices.communication_hint(False) == "ring"


def test_launcher_gpus_one_per_rank():
    hosts = ["h:1", "h:2", "h:3"]
    assert [rank_env({}, r, hosts, gpus=2)["CUDA_VISIBLE_DEVICES"] for r in range(3)] == \
        ["0", "1", "0"]
    parent = {"CUDA_VISIBLE_DEVICES": "4,5"}
    assert [rank_env(parent, r, hosts, gpus=2)["CUDA_VISIBLE_DEVICES"] for r in range(2)] == \
        ["4", "5"]
    assert "CUDA_VISIBLE_DEVICES" not in rank_env({}, 0, hosts)
    with pytest.raises(ValueError, match="--gpus 3 but CUDA_VISIBLE_DEVICES='4,5' lists only 2"):
        rank_env(parent, 0, hosts, gpus=3)


@pytest.mark.timeout(120)
def test_slurm_ranks_on_one_2_gpu_host_each_told_its_gpu():
    """srun -n 2 on a 2-GPU node, as env only: SLURM_* and CUDA_VISIBLE_DEVICES=0,1.

    (The Open MPI source runs for real in tests/test_distributed_netns.py.)
    """
    base = free_port_run(2)
    envs = [{"SLURM_PROCID": str(r), "SLURM_LOCALID": str(r), "SLURM_STEP_NUM_TASKS": "2",
             "SLURM_STEP_NODELIST": "127.0.0.1", "SLURM_STEP_TASKS_PER_NODE": "2",
             "NPU_BRIDGE_BASE_PORT": str(base), "CUDA_VISIBLE_DEVICES": "0,1"}
            for r in range(2)]
    results = run_ranks(envs, "device_check.py", timeout=90)
    for rank, (rc, out) in enumerate(results):
        assert rc == 0, out
        assert ("DEVICE rank=%d local=%d/2 cuda=0,1 visible_device_list=%d hint=ring sum=3"
                % (rank, rank, rank)) in out, out
        assert "from Slurm (SLURM_PROCID); hosts 127.0.0.1:%d,127.0.0.1:%d" % (base, base + 1) \
            in out, out
