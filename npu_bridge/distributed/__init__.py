"""Data-parallel ranks on TensorFlow's collective runtime, in four groups.

Each group is a folder a reader can enter alone; imports point down this list
(``tests/test_import_layers.py`` checks it, as for the package):

  3. training as ranks: sessions, optimizers
  2. ops across ranks: collectives
  1. where ranks come from: cluster

* ``cluster``: the rank layout from our variables, TF_CONFIG, MPI, Slurm or a
  rank table (``cluster_sources``), one server per rank and its session
  config (``runtime``), one GPU per rank (``devices``), bounded waits for
  peers (``rank_timeout``), rank sessions under bfloat16 mixed precision
  kept unfused (``bf16_fusions``), ranks that die with their launcher
  (``parent_watch``), the launcher's private network (``private_network``).
  The launcher command is ``npu_bridge.launch``.
* ``collectives``: fused all-reduce, broadcast, allgather, reduce_scatter and
  barrier (``collectives``), process groups (``groups``), the same with
  Ascend's signatures (``hccl_ops``, re-exported by ``npu_bridge.hccl``).
* ``optimizers``: ``NPUDistributedOptimizer`` (``optimizer``), its sharded
  update (``weight_sharding``) and its slots in checkpoints
  (``sharded_slots``), the migration tool's TF/Keras optimizer
  wrappers (``optimizer_wrappers``).
* ``sessions``: what Estimators, Sessions and Keras need as ranks: the
  variable broadcast (``broadcast_hook``, ``keras_callback``), NPUEstimator's
  rank config, hooks and barrier (``estimator_support``), default-target
  Sessions on the rank's server (``session_target``) with bounded runs
  (``run_deadline``), a rank that waits too long exits (``rank_watchdog``),
  which rank writes checkpoints where (``rank_model_dir``), the collectives
  of eager Keras code through a session on the rank's server (``eager_ranks``).

See docs/distributed.md.
"""
