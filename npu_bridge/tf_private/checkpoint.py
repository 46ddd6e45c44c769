"""What a Saver saves, seen from inside: saveable objects and the saver's name map.

* ``SaveableObject`` / ``SaveSpec``: a value a ``tf.compat.v1.train.Saver``
  writes under a name of our choosing; sharded optimizer slots are saved so,
  under the names unsharded training gives them
  (``distributed.optimizers.sharded_slots``).
* ``op_list_to_dict``: the checkpoint name of each variable a Saver would
  save; the shape check before a restore compares them with the checkpoint
  (``core.checkpoint_shapes``).
* ``saver_saves_nothing``: whether a Saver was built over no values (its
  ``_is_empty``); such a save names no checkpoint for a prepared ``.meta``
  file (``core.meta_graph_file``).

If these change, sharded slots stay out of checkpoints and the shape check
cannot run: importing this module fails then.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "checkpoint"
check_version(AREA, "training.saving.saveable_object(.SaveableObject, SaveSpec), "
                    "saveable_object_util.op_list_to_dict")

try:
    from tensorflow.python.training.saving import saveable_object as _saveable_object
    from tensorflow.python.training.saving import saveable_object_util as _saveable_object_util

    SaveableObject = _saveable_object.SaveableObject
    SaveSpec = _saveable_object.SaveSpec
    op_list_to_dict = _saveable_object_util.op_list_to_dict
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "saveable objects and the Saver's name map",
                  "sharded optimizer slots cannot be checkpointed and checkpoint shapes "
                  "cannot be checked", _error) from _error


# pylint: disable=protected-access
def saver_like(saver):
    """A new ``tf.compat.v1.train.Saver`` in the current graph, saving what ``saver``
    saves with its settings (its variables, max_to_keep, sharding, names ...).

    Used when model_fn built its scaffold's Saver inside the device loop's body,
    where the session cannot run its save and restore ops. Relies on the
    Saver's constructor arguments being kept as attributes of the same names.
    """
    return type(saver)(
        var_list=saver._var_list, reshape=saver._reshape, sharded=saver._sharded,
        max_to_keep=saver._max_to_keep,
        keep_checkpoint_every_n_hours=saver._keep_checkpoint_every_n_hours,
        restore_sequentially=saver._restore_sequentially, builder=None,
        allow_empty=saver._allow_empty, write_version=saver._write_version,
        pad_step_number=saver._pad_step_number,
        save_relative_paths=saver._save_relative_paths, filename=saver._filename)


def saver_saves_nothing(saver):
    """Whether ``saver`` (a ``tf.compat.v1.train.Saver``) has no values to save
    (built with ``allow_empty`` over nothing): its ``save`` then returns no path."""
    return bool(getattr(saver, "_is_empty", False))
