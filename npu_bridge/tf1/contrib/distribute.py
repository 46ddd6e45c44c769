"""``tf.contrib.distribute``: the strategies that moved into ``tf.distribute``.

``MirroredStrategy``, ``OneDeviceStrategy``, ``MultiWorkerMirroredStrategy``
(``CollectiveAllReduceStrategy``), ``ParameterServerStrategy``,
``CrossDeviceOps`` ... resolve to ``tf.compat.v1.distribute`` (and its
``experimental``).  ``TPUStrategy`` needs a TPU.  For npu_bridge's own ranks
use the launcher and ``NPUDistributedOptimizer`` instead.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

CollectiveAllReduceStrategy = tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy

__getattr__ = not_provided_getattr(
    "tf.contrib.distribute", first_of(tf.compat.v1.distribute,
                                      tf.compat.v1.distribute.experimental))
