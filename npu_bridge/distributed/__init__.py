"""Data-parallel ranks on TensorFlow's collective runtime.

``runtime`` (rank layout, one server per rank, session configs),
``collectives`` (fused all-reduce, broadcast, allgather, reduce_scatter,
barrier), ``optimizer`` (NPUDistributedOptimizer), ``broadcast_hook``
(NPUBroadcastGlobalVariablesHook, npu_hooks_append) and
``estimator_support`` (what NPUEstimator changes when RANK_SIZE > 1),
``groups`` (process groups: subsets of ranks for collectives),
``optimizer_wrappers`` (the migration tool's TF/Keras optimizer wrappers) and
``keras_callback`` (NPUBroadcastGlobalVariablesCallback).
See docs/distributed.md.
"""
