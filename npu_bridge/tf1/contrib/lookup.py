"""``tf.contrib.lookup``: the lookup tables, still in TensorFlow 2.15's ``lookup_ops``.

``index_table_from_file``, ``index_table_from_tensor``,
``index_to_string_table_from_file/_from_tensor``, ``HashTable``,
``KeyValueTensorInitializer``, ``TextFileInitializer``, ``IdTableWithHashBuckets``,
``MutableHashTable``, ``MutableDenseHashTable`` ...
"""

import tensorflow as tf
from tensorflow.python.ops import lookup_ops as _lookup_ops

from npu_bridge.tf1.errors import first_of, not_provided_getattr

__getattr__ = not_provided_getattr(
    "tf.contrib.lookup", first_of(_lookup_ops, tf.compat.v1.lookup,
                                  tf.compat.v1.lookup.experimental))
