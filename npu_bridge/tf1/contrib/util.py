"""``tf.contrib.util``: tensor and proto helpers, now TensorFlow's own.

``make_tensor_proto``, ``make_ndarray``, ``constant_value``
(``tf.get_static_value``).
"""

import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr

make_tensor_proto = tf.compat.v1.make_tensor_proto
make_ndarray = tf.make_ndarray
constant_value = tf.get_static_value

__getattr__ = not_provided_getattr("tf.contrib.util")
