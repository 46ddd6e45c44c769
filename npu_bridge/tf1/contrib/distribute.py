"""``tf.contrib.distribute``: the strategies that moved into ``tf.distribute``.

``MirroredStrategy``, ``OneDeviceStrategy``, ``MultiWorkerMirroredStrategy``
(``CollectiveAllReduceStrategy``), ``ParameterServerStrategy``,
``CrossDeviceOps`` ... resolve to ``tf.compat.v1.distribute`` (and its
``experimental``); ``MirroredStrategy`` also takes TF 1.15 contrib's
``num_gpus`` / ``num_gpus_per_worker`` (that many GPUs, or the CPU for 0)
and ``cross_tower_ops``.  ``TPUStrategy`` needs a TPU.  For npu_bridge's own ranks
use the launcher and ``NPUDistributedOptimizer`` instead.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

CollectiveAllReduceStrategy = tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy


class MirroredStrategy(tf.compat.v1.distribute.MirroredStrategy):
    """``tf.compat.v1.distribute.MirroredStrategy`` with TF 1.15 contrib's arguments."""

    def __init__(self, devices=None, num_gpus=None, num_gpus_per_worker=None,
                 cross_device_ops=None, auto_shard_dataset=False, cross_tower_ops=None):
        del auto_shard_dataset  # tf.distribute shards datasets itself
        gpus = num_gpus if num_gpus is not None else num_gpus_per_worker
        if devices is None and gpus is not None:
            if not isinstance(gpus, int) or isinstance(gpus, bool) or gpus < 0:
                raise ValueError("MirroredStrategy num_gpus must be an int >= 0; got %r" % (gpus,))
            devices = (["/device:GPU:%d" % index for index in range(gpus)] if gpus
                       else ["/device:CPU:0"])
        super().__init__(devices=devices, cross_device_ops=cross_device_ops or cross_tower_ops)

__getattr__ = not_provided_getattr(
    "tf.contrib.distribute", first_of(tf.compat.v1.distribute,
                                      tf.compat.v1.distribute.experimental))
