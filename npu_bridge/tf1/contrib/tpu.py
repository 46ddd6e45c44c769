"""``tf.contrib.tpu``: TPUEstimator's classes and config enums, as tensorflow-estimator 2.15 keeps them.

``TPUEstimator``, ``TPUEstimatorSpec``, ``RunConfig``, ``TPUConfig``,
``InputPipelineConfig`` (the enum class with ``PER_HOST_V1``,
``PER_HOST_V2``, ``BROADCAST`` ...) come from ``tf.compat.v1.estimator.tpu``;
``CrossShardOptimizer``, ``bfloat16_scope``, ``rewrite``, ``shard`` ...
from ``tf.compat.v1.tpu``.  On CPU, TPUEstimator needs ``use_tpu=False``.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

__getattr__ = not_provided_getattr(
    "tf.contrib.tpu", first_of(tf.compat.v1.estimator.tpu, tf.compat.v1.tpu,
                               tf.compat.v1.tpu.experimental))
