"""A checkpoint whose variables have other shapes than the model's fails before it is used.

The stock Estimator restores a resource variable from a checkpoint of another
shape without a word (the restore takes the checkpoint's shape) and trains on
with it: [4, 8] where the model now says [4, 16]. So before a session restores
a checkpoint, the checkpoint's index (names and shapes, no values) is compared
with the variables the checkpoint's saver would restore, and every difference
fails with the variable and both shapes. Variables the checkpoint does not hold
are left to the restore (it names them). ``warm_start_from`` already checks
shapes in TensorFlow (``init_from_checkpoint``).
"""

import tensorflow as tf

from npu_bridge.tf_private.checkpoint import op_list_to_dict

_SHOWN = 10  # mismatches listed in one message


def _model_shapes(graph):
    """{checkpoint name: full shape} of the graph's global variables."""
    shapes = {}
    for name, value in op_list_to_dict(
            graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)).items():
        parts = value if isinstance(value, (list, tuple)) else [value]
        info = getattr(parts[0], "_save_slice_info", None)  # a partitioned variable
        shape = info.full_shape if info is not None else parts[0].shape.as_list()
        shapes[name] = [int(d) if d is not None else None for d in shape]
    return shapes


def check(checkpoint_path, graph=None):
    """Raise ValueError if ``checkpoint_path`` holds a model variable with another shape."""
    if not checkpoint_path:
        return
    graph = graph or tf.compat.v1.get_default_graph()
    saved = tf.compat.v1.train.NewCheckpointReader(checkpoint_path).get_variable_to_shape_map()
    wrong = [(name, saved[name], shape) for name, shape in sorted(_model_shapes(graph).items())
             if name in saved and None not in shape and list(saved[name]) != shape]
    if not wrong:
        return
    lines = ["  %s: %s in the checkpoint, %s in the model" % item for item in wrong[:_SHOWN]]
    if len(wrong) > _SHOWN:
        lines.append("  ... and %d more" % (len(wrong) - _SHOWN))
    raise ValueError(
        "The checkpoint %s holds %d variable(s) with another shape than the model's:\n%s\n"
        "Restoring it would replace the model's shapes with the checkpoint's. Train into "
        "another model_dir (or empty this one), or start from it with "
        "warm_start_from=tf.estimator.WarmStartSettings(..., vars_to_warm_start=...) "
        "naming the variables that still fit." % (checkpoint_path, len(wrong), "\n".join(lines)))


def check_latest(model_dir, graph=None):
    """``check`` against the checkpoint a training session in ``model_dir`` would restore."""
    check(tf.train.latest_checkpoint(model_dir), graph)


class CheckpointShapesHook(tf.compat.v1.train.SessionRunHook):
    """Runs ``check`` on ``checkpoint_path`` (or model_dir's latest) before the session."""

    def __init__(self, model_dir, checkpoint_path=None):
        self._model_dir, self._checkpoint_path = model_dir, checkpoint_path

    def begin(self):
        check(self._checkpoint_path or tf.train.latest_checkpoint(self._model_dir))
