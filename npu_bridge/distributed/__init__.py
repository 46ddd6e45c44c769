"""Data-parallel ranks on TensorFlow's collective runtime.

``cluster_sources`` (rank layout from our variables, TF_CONFIG, MPI, Slurm or
a rank table), ``runtime`` (one server per rank, session configs),
``devices`` (one GPU per rank, nccl/ring hint),
``collectives`` (fused all-reduce, broadcast, allgather, reduce_scatter,
barrier), ``optimizer`` (NPUDistributedOptimizer), ``weight_sharding`` (its
sharded update), ``broadcast_hook`` (NPUBroadcastGlobalVariablesHook,
npu_hooks_append),
``estimator_support`` (what NPUEstimator changes when RANK_SIZE > 1),
``groups`` (process groups: subsets of ranks for collectives),
``optimizer_wrappers`` (the migration tool's TF/Keras optimizer wrappers),
``keras_callback`` (NPUBroadcastGlobalVariablesCallback), ``eager_ranks``
(their collectives in eager code, through a session on the rank's server) and
``bf16_fusions`` (rank sessions under bfloat16 mixed precision stay unfused).
See docs/distributed.md.
"""
