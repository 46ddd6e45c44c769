"""What importing ``npu_init`` does to the process: a migrated script becomes one rank of its job.

Scripts migrated to Ascend's adapter start with ``from npu_bridge.npu_init
import *`` and then build plain ``tf.compat.v1.Session``s (or
MonitoredTrainingSessions) with the default target, and often read
``int(os.getenv('RANK_SIZE'))`` themselves. The original adapter sets its
devices and collectives up as a side effect of that import. Here the same
import calls ``set_up_ranks()``, the one place where npu_bridge changes the
process it runs in; importing any other module of the package changes
nothing. With RANK_SIZE unset or 1 (and no cluster launcher), it changes
nothing either.
"""

from npu_bridge.distributed.cluster.cluster_sources import export_rank_env
from npu_bridge.distributed.sessions import session_target


def set_up_ranks():
    """Make a migrated script one rank of its job (idempotent); True when it is one.

    1. RANK_SIZE, RANK_ID, DEVICE_ID and NPU_BRIDGE_HOSTS are written to
       ``os.environ`` from the cluster source that started the process (srun,
       mpirun, TF_CONFIG ...) when RANK_SIZE is not set already
       (``cluster_sources.export_rank_env``);
    2. with RANK_SIZE > 1, sessions created with the default target run on
       this rank's ``tf.distribute.Server`` with the collective config
       (``session_target.install`` wraps ``BaseSession.__init__``).
    """
    export_rank_env()
    return session_target.install()
