"""Start every rank from rank 0's variables.

Ranks initialise (or restore) their variables independently; this hook then
overwrites all global variables with the root rank's values, once per
session, right after creation (so after any checkpoint restore too).
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives

def broadcastable(variables):
    """The variables a broadcast carries: fully defined shapes, numeric or bool values."""
    def numeric_or_bool(dtype):
        return dtype.is_floating or dtype.is_integer or dtype == tf.bool
    return [v for v in variables
            if v.shape.is_fully_defined() and numeric_or_bool(v.dtype.base_dtype)]


def broadcast_variables_op(variables, root_rank=0):
    """One op assigning root_rank's values to ``variables`` on every rank."""
    chosen = broadcastable(variables)
    if not chosen or not runtime.is_distributed():
        return tf.no_op(name="broadcast_global_variables")
    op = collectives.broadcast_to_variables(chosen, root_rank)
    return tf.group(op, name="broadcast_global_variables")


class NPUBroadcastGlobalVariablesHook(tf.compat.v1.train.SessionRunHook):
    """SessionRunHook broadcasting global variables from ``root_rank`` (default 0).

    ``index`` (a device index in the original) is accepted and unused.
    """

    def __init__(self, root_rank=None, index=None):
        self._root_rank = 0 if root_rank is None else root_rank
        size = runtime.rank_info().rank_size
        if not isinstance(self._root_rank, int) or not 0 <= self._root_rank < size:
            raise ValueError("root_rank must be an int in [0, %d) (RANK_SIZE=%d), got %r"
                             % (size, size, root_rank))
        self._index = index
        self._op = None

    @property
    def root_rank(self):
        """The rank whose values every rank starts from."""
        return self._root_rank

    def begin(self):
        self._op = None
        if runtime.is_distributed():
            self._op = broadcast_variables_op(tf.compat.v1.global_variables(),
                                              self._root_rank)

    def after_create_session(self, session, coord):
        if self._op is not None:
            session.run(self._op)


_DEFAULT_HOOKS = []


def npu_hooks_append(hooks_list=_DEFAULT_HOOKS):
    """Adds the broadcast hook when RANK_SIZE > 1; returns the list.

    A list passed in is extended in place (as in the original); the default
    gives a fresh list each call.
    """
    if hooks_list is _DEFAULT_HOOKS or hooks_list is None:
        hooks_list = []
    elif not isinstance(hooks_list, list):
        raise TypeError("hooks_list must be a list of SessionRunHook, got %s"
                        % type(hooks_list).__name__)
    if runtime.is_distributed() and not any(
            isinstance(h, NPUBroadcastGlobalVariablesHook) for h in hooks_list):
        hooks_list.append(NPUBroadcastGlobalVariablesHook(0))
    return hooks_list
