"""Collectives for eager code on ranks (TF2 Keras ``model.fit``), run through a session.

Why not TensorFlow's own eager collectives: they need the eager context
switched to the cluster (``context.enable_collective_ops``) before the first
tensor or variable exists.  Variables made before the switch live on
``/job:localhost`` devices that the switch removes (reading them fails with
"unknown device").  A Keras script builds its model first and only then
compiles it with ``npu_keras_optimizer(...)`` or adds
``NPUBroadcastGlobalVariablesCallback``, which is too late.

So eager values go to the rank's server the way graph code does: a graph of
its own holds one fused all-reduce per gradient signature (or a broadcast),
and a session on ``runtime.ensure_server()`` runs it.  Inside Keras' train
function the gradients reach that session through a ``tf.numpy_function``
(one extra Session.run per step).  Every rank applies the reduced bytes the
collective hands back, so ranks stay bitwise equal.

The graphs are built the first time each signature is seen; ranks see the
same signatures in the same order (they run the same script), so the
collectives' instance keys agree, as they do for graph-mode code.
"""

import atexit
import threading

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
from npu_bridge.distributed.sessions import broadcast_hook


class _RankSession(object):
    """A graph of collectives on placeholders and one session on the rank's server."""

    def __init__(self):
        self._graph = tf.Graph()
        self._session = None
        self._built = {}  # signature -> (placeholders, outputs)
        self._lock = threading.Lock()

    def run(self, signature, arrays, build):
        """Feeds ``arrays`` to the graph ``build(placeholders)`` made for ``signature``."""
        with self._lock:
            if signature not in self._built:
                with self._graph.as_default():
                    feeds = [tf.compat.v1.placeholder(a.dtype, a.shape) for a in arrays]
                    self._built[signature] = (feeds, build(feeds))
            feeds, outputs = self._built[signature]
            if self._session is None:
                self._session = tf.compat.v1.Session(
                    runtime.ensure_server(), graph=self._graph,
                    config=runtime.session_config_for_rank())
                atexit.register(self.close)
            return self._session.run(outputs, feed_dict=dict(zip(feeds, arrays)))

    def close(self):
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None


_rank_session = _RankSession()


def _signature(kind, arrays, *extra):
    return (kind,) + extra + tuple((a.dtype.str, a.shape) for a in arrays)


def allreduce_arrays(arrays, reduction="mean"):
    """numpy arrays reduced over all ranks (one fused collective per dtype)."""
    arrays = [np.asarray(a) for a in arrays]
    return _rank_session.run(_signature("allreduce", arrays, reduction), arrays,
                             lambda feeds: collectives.fused_allreduce(feeds, reduction))


def allreduce(tensors, reduction="mean"):
    """``tensors`` reduced over all ranks; usable eagerly and inside a ``tf.function``."""
    tensors = [tf.convert_to_tensor(t) for t in tensors]
    if not tensors:
        return []
    reduced = tf.numpy_function(lambda *arrays: allreduce_arrays(arrays, reduction),
                                tensors, [t.dtype for t in tensors], stateful=True,
                                name="npu_rank_allreduce")
    for out, original in zip(reduced, tensors):
        out.set_shape(original.shape)
    return list(reduced)


def broadcast_variables(variables, root_rank=0):
    """Assigns ``root_rank``'s values to ``variables`` on every rank (eager)."""
    chosen = broadcast_hook.broadcastable(variables)
    if not chosen or not runtime.is_distributed():
        return
    arrays = [v.numpy() for v in chosen]
    values = _rank_session.run(_signature("broadcast", arrays, root_rank), arrays,
                               lambda feeds: collectives.broadcast(feeds, root_rank))
    for variable, value in zip(chosen, values):
        variable.assign(value)
