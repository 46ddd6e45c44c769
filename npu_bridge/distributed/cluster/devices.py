"""One GPU per rank, and the collective implementation that suits the rank's device.

On a host with G GPUs and L local ranks, local rank l uses GPU ``l % G`` (ranks
share GPUs round-robin when L > G; a warning says so).  G is the length of
``CUDA_VISIBLE_DEVICES`` when it is set (``npu_bridge.launch --gpus``, Slurm's
``--gpus-per-task`` and Kubernetes' device plugin set it, often to one GPU per
rank, which then maps every rank to its only GPU), else the GPUs TensorFlow
finds.  The choice goes into the rank server's
``gpu_options.visible_device_list``: the server creates the rank's devices, so
that is where TensorFlow takes it from (a session config's device options come
too late).

Collectives carry a communication hint: ``nccl`` when this process has a GPU
device, ``ring`` (gRPC between the servers) on CPU.  No GPU was available where
this was written: the assignment and the hint are tested on CPU (what each rank
was told); NCCL itself never ran here.
"""

import functools
import logging
import os

_log = logging.getLogger(__name__)


def visible_gpu_count(env=None):
    """GPUs this process may use: CUDA_VISIBLE_DEVICES entries if set, else TF's count."""
    env = os.environ if env is None else env
    raw = env.get("CUDA_VISIBLE_DEVICES")
    if raw is not None:
        entries = [e.strip() for e in raw.split(",") if e.strip()]
        # CUDA stops at the first invalid entry; "-1" is the usual way to hide all
        count = 0
        for entry in entries:
            if entry.startswith("-"):
                break
            count += 1
        return count
    return physical_gpu_count()


@functools.lru_cache(maxsize=None)
def physical_gpu_count():
    """GPU devices TensorFlow can create in this process (0 on a CPU-only host or build)."""
    import tensorflow as tf
    return len(tf.config.list_physical_devices("GPU"))


def gpu_for_local_rank(local_rank, local_size, gpu_count):
    """Index (among the visible GPUs) for a local rank, or None without GPUs."""
    if local_rank < 0 or local_rank >= local_size:
        raise ValueError("local_rank must be in [0, %d), got %d" % (local_size, local_rank))
    if gpu_count <= 0:
        return None
    if local_size > gpu_count:
        _log.warning("npu_bridge: %d local ranks share %d GPUs (local rank %d gets GPU %d)",
                     local_size, gpu_count, local_rank, local_rank % gpu_count)
    return local_rank % gpu_count


def communication_hint(has_gpu):
    """``nccl`` for collectives between GPUs, ``ring`` between CPUs."""
    return "nccl" if has_gpu else "ring"


def rank_communication_hint():
    """The hint for this process's collectives (by the devices TensorFlow really has)."""
    return communication_hint(physical_gpu_count() > 0)


def apply_rank_gpu(config, local_rank, local_size, env=None):
    """Sets ``config.gpu_options.visible_device_list`` to this rank's GPU; returns the index."""
    gpu = gpu_for_local_rank(local_rank, local_size, visible_gpu_count(env))
    if gpu is not None:
        config.gpu_options.visible_device_list = str(gpu)
    return gpu


def launcher_gpu_env(base_env, local_rank, gpus):
    """CUDA_VISIBLE_DEVICES for one child of ``npu_bridge.launch --gpus G``.

    Picks entry ``local_rank % G`` of the parent's CUDA_VISIBLE_DEVICES when set
    (so ``CUDA_VISIBLE_DEVICES=4,5 launch --gpus 2`` uses GPUs 4 and 5), else GPU
    ``local_rank % G``.
    """
    if gpus < 1:
        raise ValueError("--gpus must be >= 1 when given, got %d" % gpus)
    parent = [e.strip() for e in base_env.get("CUDA_VISIBLE_DEVICES", "").split(",") if e.strip()]
    if parent and len(parent) < gpus:
        raise ValueError("--gpus %d but CUDA_VISIBLE_DEVICES=%r lists only %d"
                         % (gpus, base_env["CUDA_VISIBLE_DEVICES"], len(parent)))
    index = local_rank % gpus
    return parent[index] if parent else str(index)
