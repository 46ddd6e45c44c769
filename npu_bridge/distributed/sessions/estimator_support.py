"""What an Estimator needs to run as one rank of a data-parallel job.

The stock Estimator is single-worker here on purpose: each rank is its own
session chief on its own server (``runtime.ensure_server``), gradients are
averaged by ``NPUDistributedOptimizer`` and rank 0's variables are broadcast
at session start.  This module adapts a RunConfig and the train() arguments
to that; every function is a no-op when single-process.
"""

import tempfile

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.distributed.optimizers import sharded_slots
from npu_bridge.distributed.sessions import broadcast_hook
from npu_bridge.tf_private.estimator import make_single_worker


def rank_run_config(config):
    """A copy of ``config`` for this rank.

    * master / evaluation_master: this rank's server target;
    * session_config: collective group leader + own-task device filter, and
      ``isolate_session_state``: a server keeps variables between sessions, so
      without it a second train() (another model_dir, same names) would start
      from the first one's state wherever an initial value reads another
      variable (an EMA shadow reads its variable if that is initialised), as
      a local session never does;
    * any TF_CONFIG cluster is dropped, so the Estimator neither starts a
      second server nor treats ranks as ps/worker/chief replicas;
    * ranks other than 0 write no summaries and log no step rates.

    Every rank keeps the checkpoint settings: device loops are cut at the same
    steps on every rank (their collectives must meet), and which rank writes
    checkpoints where is decided by each train() (``rank_model_dir``).
    """
    if not runtime.is_distributed():
        return config
    target = runtime.ensure_server()
    base = config.session_config or tf.compat.v1.ConfigProto(allow_soft_placement=True)
    changes = {"session_config": runtime.session_config_for_rank(base, isolated=True)}
    if not runtime.is_writer_rank():
        changes.update(save_summary_steps=0, log_step_count_steps=None)
    return make_single_worker(config.replace(**changes), target)


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


def rank_saving_listeners(listeners, writes):
    """Saving listeners only run where checkpoints are written (``writes``)."""
    return listeners if writes else []


def session_start_hooks(scaffold, config, model_dir):
    """Hooks that must run first when a training session starts, and the saver they need.

    With weight-update sharding this installs the saver that writes the sharded
    slots (``sharded_slots``) and returns the hook restoring this rank's slots
    after the session has initialised its local variables; otherwise nothing.
    """
    graph = tf.compat.v1.get_default_graph()
    plan = sharded_slots.plan_for(graph)
    if plan is None:
        return []
    if scaffold.saver is not None or tf.compat.v1.get_collection(
            tf.compat.v1.GraphKeys.SAVERS):
        sharded_slots.warn_not_saved(graph)
        return []
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SAVERS, sharded_slots.checkpoint_saver(
        graph, config.keep_checkpoint_max, config.keep_checkpoint_every_n_hours))
    return [sharded_slots.SlotRestoreHook(plan, model_dir)]


def broadcast_hooks_apart(hooks):
    """(the variable broadcast hooks in ``hooks``, the others): the estimator orders
    the broadcasts among the hooks that act first (``session_start_order``)."""
    apart = [h for h in hooks if isinstance(h, broadcast_hook.NPUBroadcastGlobalVariablesHook)]
    return apart, [h for h in hooks if h not in apart]


def session_start_order(restores, broadcasts, saver, writes):
    """The hooks that act first as a training session starts, in their order.

    ``restores``: from ``session_start_hooks``; ``broadcasts``: from
    ``broadcast_hooks_apart``; ``saver``: the estimator's checkpoint saver, or
    None; ``writes``: whether this rank writes its model_dir's checkpoints.

    Sharded slots are restored first. The broadcast comes before the saver
    writes the starting step's checkpoint, so that on every rank that
    checkpoint holds the root rank's values; on the root rank itself, whose
    values the broadcast leaves as they are, the saver acts first (as the stock
    Estimator orders its saver before the hooks given to train()). The other
    ranks then reach the broadcast while the root writes, rather than waiting in
    their first run while it writes after the broadcast. Not when saving
    exchanges sharded slots (a collective): every rank must then meet its
    collectives in the same order.
    """
    if saver is None:
        return restores + broadcasts
    # ``restores`` is not empty exactly when the saver exchanges sharded slots.
    if broadcasts and writes and not restores and runtime.is_distributed() and all(
            h.root_rank == runtime.rank_info().rank_id for h in broadcasts):
        return restores + [saver] + broadcasts
    return restores + broadcasts + [saver]


def after_train():
    """Call when train() returns: waits until rank 0's last checkpoint is on disk."""
    collectives.barrier("train()'s wait for rank 0's last checkpoint")


def private_model_dir(config):
    """For a plain RunConfig on a non-writer rank: a copy writing to a directory of its own.

    A stock ``tf.estimator.Estimator`` given ``npu_run_config_init(config)``
    writes checkpoints, summaries and exports from every rank; ranks racing on
    one model_dir end in AlreadyExistsError in the exporter.  Rank 0 keeps the
    model_dir; every other rank writes to a fresh temporary directory instead
    (its variables equal rank 0's: gradients are averaged and the broadcast
    hook starts every session from rank 0's values, restored ones included).
    """
    if not runtime.is_distributed() or runtime.is_writer_rank() or not config.model_dir:
        return config
    rank = runtime.rank_info().rank_id
    scratch = tempfile.mkdtemp(prefix="npu_bridge_rank%d_" % rank)
    tf.compat.v1.logging.info(
        "npu_bridge: rank %d writes its checkpoints and exports to %s; rank 0 writes %s",
        rank, scratch, config.model_dir)
    return config.replace(model_dir=scratch)
