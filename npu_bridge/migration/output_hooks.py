"""NPUOutputTensorHook and NPUCheckpointSaverHook, the original's npu_hook extras."""

import logging

import tensorflow as tf

_log = logging.getLogger(__name__)


class NPUOutputTensorHook(tf.compat.v1.train.SessionRunHook):
    """Collects tensors' values every step and hands them to ``output_fn`` in batches.

    ``tensors`` is a dict {tag: tensor or name} or a list of tensors/names
    (then each item is its own tag, as in the original).  Every step's values
    become one dict {tag: value}; ``output_fn(list_of_those_dicts)`` is called
    every ``output_every_n_steps`` session runs and once more at the end for
    whatever is left.  ``output_every_n_steps=0`` means only at the end.
    ``dependencies`` are ops the values must wait for (e.g. the train op);
    pass variables themselves, not tensors already read from them, so the
    read is made under those dependencies.
    """

    def __init__(self, tensors, dependencies=None, output_fn=None,
                 output_every_n_steps=0):
        if output_fn is not None and not callable(output_fn):
            raise TypeError("NPUOutputTensorHook output_fn must be callable or None; "
                            "got %s." % type(output_fn).__name__)
        if (isinstance(output_every_n_steps, bool)
                or not isinstance(output_every_n_steps, int)
                or output_every_n_steps < 0):
            raise ValueError("NPUOutputTensorHook output_every_n_steps must be an "
                             "int >= 0; got %r." % (output_every_n_steps,))
        if tensors is None:
            tensors = {}
        if not isinstance(tensors, dict):
            if isinstance(tensors, (str, tf.Tensor)):
                tensors = [tensors]
            tensors = {item: item for item in tensors}
        self._tag_order = list(tensors)
        if dependencies is not None:
            if not isinstance(dependencies, (list, tuple)):
                dependencies = [dependencies]
            with tf.control_dependencies(dependencies):
                tensors = {tag: tf.identity(_as_tensor(value))
                           for tag, value in tensors.items()}
        self._tensors = tensors
        self._output_fn = output_fn
        self._every = output_every_n_steps
        self._outputs = []
        self._fetches = None
        self._runs = 0

    def begin(self):
        self._fetches = {tag: _as_tensor(value) for tag, value in self._tensors.items()}
        self._outputs = []
        self._runs = 0

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._fetches)

    def after_run(self, run_context, run_values):
        values = run_values.results
        self._outputs.append({tag: values[tag] for tag in self._tag_order})
        self._runs += 1
        if self._every and self._runs % self._every == 0:
            self._flush()

    def end(self, session):
        if self._outputs:
            self._flush()

    def _flush(self):
        batch, self._outputs = self._outputs, []
        if self._output_fn is not None:
            self._output_fn(batch)


def _as_tensor(value):
    """A tensor, op or variable given as such or by name in the default graph."""
    if isinstance(value, str):
        return tf.compat.v1.get_default_graph().as_graph_element(value)
    return value


class NPUCheckpointSaverHook(tf.compat.v1.train.CheckpointSaverHook):
    """A CheckpointSaverHook under the original's name and signature.

    The original only adds logging; saving cadence (steps or seconds, one of
    the two) and listeners behave exactly as TensorFlow's hook.
    """

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        super(NPUCheckpointSaverHook, self).__init__(
            checkpoint_dir=checkpoint_dir, save_secs=save_secs,
            save_steps=save_steps, saver=saver,
            checkpoint_basename=checkpoint_basename, scaffold=scaffold,
            listeners=listeners)

    def end(self, session):
        _log.info("NPUCheckpointSaverHook: final checkpoint in %s", self._checkpoint_dir)
        super(NPUCheckpointSaverHook, self).end(session)
