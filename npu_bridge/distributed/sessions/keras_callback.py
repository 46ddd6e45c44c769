"""NPUBroadcastGlobalVariablesCallback: Keras ranks start from rank 0's weights.

The Keras counterpart of NPUBroadcastGlobalVariablesHook.  Before the first
batch (when Keras has built the model, the optimizer's slots and the train
function) it assigns the root rank's values to every global variable of the
Keras graph, in the Keras backend session.  Graph mode only, like the
optimizer wrappers (see ``optimizer_wrappers``); single process: nothing.
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.sessions.broadcast_hook import broadcast_variables_op


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
            raise RuntimeError(
                "NPUBroadcastGlobalVariablesCallback: broadcasting over RANK_SIZE=%d ranks "
                "needs graph mode (tf.compat.v1.disable_eager_execution()); npu_bridge runs "
                "collectives in sessions on each rank's server." % runtime.rank_info().rank_size)
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
