"""TensorFlow-internal names TF 1.15 had and 2.15 moved, put back in the TF1 mode.

TF 1.15 scripts, and tf-slim 1.1 itself, reach TensorFlow through its
internal modules: ``from tensorflow.python.ops import control_flow_ops`` then
``control_flow_ops.cond``, ``ops.Tensor``, ``array_ops.stack``,
``nest.is_sequence``, ``graph_util.convert_variables_to_constants``,
``pywrap_tensorflow.NewCheckpointReader`` ...  TensorFlow 2.15 keeps each of
them under another module (``cond.cond``, ``tensor.Tensor``,
``array_ops_stack.stack`` ...).  ``install()`` adds each name back to the
module TF 1.15 had it in, as the very object TensorFlow 2.15 exports
publicly (``control_flow_ops.cond is tf.compat.v1.cond``).

It patches TensorFlow's real modules, so it runs only when the TF1 mode is
switched on (``mode.activate``), and it only *adds* a name a module lacks: a
name the module already has is never replaced.  ``table`` lists every name
and where it lives now.
"""

from npu_bridge.tf1.moved_internals.patch import add_missing_names
from npu_bridge.tf1.moved_internals.table import MOVED_NAMES


def install():
    """Adds every name of ``table.MOVED_NAMES`` its module lacks (idempotent)."""
    for module_name, names in MOVED_NAMES.items():
        add_missing_names(module_name, names)
