"""SetIterationsVarHook and TellMeStepOrLossHook: hooks that talk to Ascend's runtime.

``SetIterationsVarHook(iterations_per_loop)`` loads the loop count into the
variables Ascend's compiled loop reads.  Here the device loop takes N from
``NPURunConfig(iterations_per_loop=N)``, so the hook checks its argument and
does nothing else.

``TellMeStepOrLossHook(step=..., total_step=..., loss=..., final_loss=...)``
tells the runtime the current step or loss, by tensor name.  Nothing below
listens here, but the hook still fetches those tensors after every run (by
name, so it also works for tensors built in model_fn under the device loop)
and keeps the latest values in ``last_step`` / ``last_loss``, logging progress
towards ``total_step`` / ``final_loss`` at debug level.
"""

import logging

import tensorflow as tf

_log = logging.getLogger(__name__)


class SetIterationsVarHook(tf.compat.v1.train.SessionRunHook):
    """Accepts ``iterations_per_loop`` (a positive int); the device loop reads N from the config."""

    def __init__(self, iterations_per_loop=None):
        if iterations_per_loop is not None and (
                isinstance(iterations_per_loop, bool) or not isinstance(iterations_per_loop, int)
                or iterations_per_loop <= 0):
            raise ValueError("SetIterationsVarHook iterations_per_loop must be a positive int; "
                             "got %r" % (iterations_per_loop,))
        self._iterations_per_loop = iterations_per_loop


class TellMeStepOrLossHook(tf.compat.v1.train.SessionRunHook):
    """Fetches the named step and/or loss tensors after every run (see the module doc)."""

    def __init__(self, step=None, total_step=None, loss=None, final_loss=None):
        for arg, value in (("step", step), ("loss", loss)):
            if value is not None and not isinstance(value, str):
                raise TypeError("TellMeStepOrLossHook %s must be a tensor name (str); got %s"
                                % (arg, type(value).__name__))
        if step is None and loss is None:
            raise ValueError("TellMeStepOrLossHook needs step (with total_step) or loss "
                             "(with final_loss)")
        self._names = {"step": step, "loss": loss}
        self.total_step, self.final_loss = total_step, final_loss
        self.last_step = self.last_loss = None
        self._fetches = None

    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self._fetches = {key: graph.as_graph_element(name)
                         for key, name in self._names.items() if name is not None}

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._fetches)

    def after_run(self, run_context, run_values):
        values = run_values.results
        self.last_step = values.get("step", self.last_step)
        self.last_loss = values.get("loss", self.last_loss)
        _log.debug("TellMeStepOrLossHook: step %s of %s, loss %s (target %s)",
                   self.last_step, self.total_step, self.last_loss, self.final_loss)
