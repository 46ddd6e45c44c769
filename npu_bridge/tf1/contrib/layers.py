"""``tf.contrib.layers``: tf-slim's layers package (the same code, maintained there).

Layers (conv2d, fully_connected, batch_norm, layer_norm, flatten ...),
initializers (xavier_initializer, variance_scaling_initializer),
regularizers, ``optimize_loss`` and the summaries helpers.  The old
feature-column functions (``real_valued_column`` ...) are not provided.
"""

import importlib

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

_slim_layers = importlib.import_module("tf_slim.layers")
_slim_ops = importlib.import_module("tf_slim.ops.arg_scope")

# contrib.layers also re-exported these framework helpers.
arg_scope = _slim_ops.arg_scope
add_arg_scope = _slim_ops.add_arg_scope
# TF 1.15 contrib.layers names whose code moved into TensorFlow itself.
safe_embedding_lookup_sparse = tf.compat.v1.nn.safe_embedding_lookup_sparse
embedding_lookup_unique = tf.compat.v1.nn.embedding_lookup

__getattr__ = not_provided_getattr("tf.contrib.layers", first_of(_slim_layers))
