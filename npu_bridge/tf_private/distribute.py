"""Collective ops and Slurm's host-list syntax, for ranks on TensorFlow's runtime.

``collective_ops`` builds CollectiveReduce/Gather/BcastSend/BcastRecv ops with
explicit group and instance keys, which graph-mode ranks need (the public
``tf.distribute`` strategies hide them); Slurm's ``node[01-04]`` and
``2(x4)`` syntaxes are decoded with TensorFlow's own helpers. If these
change, ranks cannot reduce gradients (or read a Slurm layout): importing this
module fails then.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "distribute"
check_version(AREA, "ops.collective_ops, slurm_cluster_resolver's host-list helpers")

try:
    from tensorflow.python.distribute.cluster_resolver import slurm_cluster_resolver as _slurm
    from tensorflow.python.ops import collective_ops  # noqa: F401  (used by collectives)

    expand_hostlist = _slurm.expand_hostlist
    expand_tasks_per_node = _slurm.expand_tasks_per_node
    for _name in ("all_reduce", "all_gather", "broadcast_send", "broadcast_recv"):
        if not callable(getattr(collective_ops, _name, None)):
            raise AttributeError("collective_ops.%s" % _name)
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "collective_ops and the Slurm host-list helpers",
                  "ranks cannot reduce or broadcast", _error) from _error
