"""NPUBroadcastGlobalVariablesCallback: Keras ranks start from rank 0's weights.

The Keras counterpart of NPUBroadcastGlobalVariablesHook.  Before the first
batch it assigns the root rank's values to the model's variables:

* graph mode (``disable_eager_execution``): Keras has built the model, the
  optimizer's slots and the train function; every global variable of the
  Keras graph is broadcast, in the Keras backend session;
* eager (TF2 ``fit``): the model's variables, and the optimizer's if it has
  made them (a restored optimizer), through ``eager_ranks``.  An optimizer
  makes its slots at the first step from the averaged gradients, so they
  start equal on every rank anyway.

Single process: nothing.
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.sessions import eager_ranks
from npu_bridge.distributed.sessions.broadcast_hook import broadcast_variables_op


def _optimizer_variables(optimizer):
    """The variables a Keras optimizer has made so far (new and legacy optimizers)."""
    if optimizer is None:
        return []
    found = getattr(optimizer, "variables", [])
    return list(found() if callable(found) else found)


class NPUBroadcastGlobalVariablesCallback(tf.keras.callbacks.Callback):
    """Broadcasts ``root_rank``'s variables once, before the first training batch."""

    def __init__(self, root_rank):
        super().__init__()
        size = runtime.rank_info().rank_size
        if isinstance(root_rank, bool) or not isinstance(root_rank, int) \
                or not 0 <= root_rank < size:
            raise ValueError("NPUBroadcastGlobalVariablesCallback root_rank must be an int "
                             "in [0, %d) (RANK_SIZE=%d); got %r" % (size, size, root_rank))
        self.root_rank = root_rank
        self.broadcast_done = False

    def on_train_batch_begin(self, batch, logs=None):
        if self.broadcast_done:
            return
        self.broadcast_done = True
        if not runtime.is_distributed():
            return
        if tf.compat.v1.executing_eagerly_outside_functions():
            eager_ranks.broadcast_variables(
                list(self.model.variables)
                + _optimizer_variables(getattr(self.model, "optimizer", None)),
                self.root_rank)
            return
        backend = tf.compat.v1.keras.backend
        session = backend.get_session()  # initialises the variables Keras made
        with session.graph.as_default():
            op = broadcast_variables_op(tf.compat.v1.global_variables(), self.root_rank)
        session.run(op)


def npu_callbacks_append(callbacks_list=None):
    """Adds the broadcast callback (root 0) when RANK_SIZE > 1; returns the list.

    A list passed in is extended in place, as in the original.
    """
    if not isinstance(callbacks_list, list):
        callbacks_list = []
    if runtime.is_distributed() and not any(
            isinstance(c, NPUBroadcastGlobalVariablesCallback) for c in callbacks_list):
        callbacks_list.append(NPUBroadcastGlobalVariablesCallback(0))
    return callbacks_list
