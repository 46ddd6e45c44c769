"""``tf.contrib.framework``: arg_scope and the variable helpers, from tf-slim and TF 2.15.

tf-slim keeps ``arg_scope``/``add_arg_scope`` and the variable helpers
(``get_variables``, ``get_model_variables``, ``model_variable``,
``assign_from_checkpoint_fn``, ``get_variables_to_restore`` ...); the rest of
what scripts use moved into TensorFlow (``nest``, ``list_variables``,
``load_variable``, ``is_tensor``, ``get_or_create_global_step`` ...).
``nest`` is TensorFlow's internal ``nest`` module, as in TF 1.15 (so
``nest.is_sequence`` works in the TF1 mode).
"""

import importlib

import tensorflow as tf
from tensorflow.python.util import nest

from npu_bridge.tf1.errors import first_of, not_provided_getattr

_arg_scope = importlib.import_module("tf_slim.ops.arg_scope")
_variables = importlib.import_module("tf_slim.ops.variables")

list_variables = tf.train.list_variables
load_variable = tf.train.load_variable
load_checkpoint = tf.train.load_checkpoint
init_from_checkpoint = tf.compat.v1.train.init_from_checkpoint
is_tensor = tf.is_tensor


def get_name_scope():
    """The current name scope of the default graph (contrib.framework.get_name_scope)."""
    return tf.compat.v1.get_default_graph().get_name_scope()


argsort = tf.argsort
sort = tf.sort
convert_to_tensor_or_sparse_tensor = tf.compat.v1.convert_to_tensor_or_sparse_tensor

__getattr__ = not_provided_getattr("tf.contrib.framework", first_of(_arg_scope, _variables))
