"""What an Estimator needs to run as one rank of a data-parallel job.

The stock Estimator is single-worker here on purpose: each rank is its own
session chief on its own server (``runtime.ensure_server``), gradients are
averaged by ``NPUDistributedOptimizer`` and rank 0's variables are broadcast
at session start.  This module adapts a RunConfig and the train() arguments
to that; every function is a no-op when single-process.
"""

import tensorflow as tf

from npu_bridge.distributed import broadcast_hook, collectives, runtime


def rank_run_config(config):
    """A copy of ``config`` for this rank.

    * master / evaluation_master: this rank's server target;
    * session_config: collective group leader + own-task device filter;
    * any TF_CONFIG cluster is dropped, so the Estimator neither starts a
      second server nor treats ranks as ps/worker/chief replicas;
    * non-writer ranks (RANK_ID != 0) save no checkpoints and no summaries.
    """
    if not runtime.is_distributed():
        return config
    target = runtime.ensure_server()
    base = config.session_config or tf.compat.v1.ConfigProto(allow_soft_placement=True)
    changes = {"session_config": runtime.session_config_for_rank(base)}
    if not runtime.is_writer_rank():
        changes.update(save_checkpoints_steps=None, save_checkpoints_secs=None,
                       save_summary_steps=0, log_step_count_steps=None)
    new = config.replace(**changes)
    # RunConfig has no public setters for these; they are plain attributes.
    new._cluster_spec = tf.train.ClusterSpec({})  # pylint: disable=protected-access
    new._task_type, new._task_id = "worker", 0  # pylint: disable=protected-access
    new._master = new._evaluation_master = target  # pylint: disable=protected-access
    new._is_chief = True  # pylint: disable=protected-access
    new._num_worker_replicas, new._num_ps_replicas = 1, 0  # pylint: disable=protected-access
    new._global_id_in_cluster = 0  # pylint: disable=protected-access
    return new


def rank_train_hooks(hooks):
    """``hooks`` plus the variable broadcast hook when distributed (added once)."""
    return broadcast_hook.npu_hooks_append(list(hooks or []))


def rank_eval_hooks(hooks):
    """``hooks`` without variable broadcasts: every rank restores rank 0's checkpoint.

    Evaluation needs no start-state broadcast (all ranks read the same
    checkpoint, batch-norm statistics included), and one would wait forever
    where rank 0 evaluates alone (train_and_evaluate's evaluations after a
    checkpoint, which only rank 0 writes).
    """
    hooks = list(hooks or [])
    if not runtime.is_distributed():
        return hooks
    return [h for h in hooks if not isinstance(h, broadcast_hook.NPUBroadcastGlobalVariablesHook)]


def rank_saving_listeners(listeners):
    """Saving listeners only run where checkpoints are written (the writer rank)."""
    if runtime.is_writer_rank():
        return listeners
    return []


def after_train():
    """Call when train() returns: waits until rank 0's last checkpoint is on disk."""
    collectives.barrier()


def private_model_dir(config):
    """For a plain RunConfig on a non-writer rank: a copy writing to a directory of its own.

    A stock ``tf.estimator.Estimator`` given ``npu_run_config_init(config)``
    writes checkpoints, summaries and exports from every rank; ranks racing on
    one model_dir end in AlreadyExistsError in the exporter.  Rank 0 keeps the
    model_dir; every other rank writes to a fresh temporary directory instead
    (its variables equal rank 0's: gradients are averaged and the broadcast
    hook starts every session from rank 0's values, restored ones included).
    NPURunConfig is left alone (NPUEstimator already saves on rank 0 only).
    """
    import tempfile

    from npu_bridge.core.config import NPURunConfig
    if (not runtime.is_distributed() or runtime.is_writer_rank()
            or isinstance(config, NPURunConfig) or not config.model_dir):
        return config
    rank = runtime.rank_info().rank_id
    scratch = tempfile.mkdtemp(prefix="npu_bridge_rank%d_" % rank)
    tf.compat.v1.logging.info(
        "npu_bridge: rank %d writes its checkpoints and exports to %s; rank 0 writes %s",
        rank, scratch, config.model_dir)
    return config.replace(model_dir=scratch)
