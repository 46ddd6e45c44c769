"""Session and resource helpers the migration tool writes into Session and Keras scripts.

On Ascend, ``init_resource()`` opens the device and HCCL before the script
builds its model, and ``shutdown_resource`` / ``close_session`` close them.
Here there is no device to open: ``init_resource`` returns a working session
(NPU-marked config, running on the rank's server under ranks, see
``session_target``) and the shutdown op, which is a no-op; the rank queries
answer from the rank runtime at any time, with or without ``init_resource``.

The Keras helpers make such a session the Keras backend session, which is
what graph-mode (``disable_eager_execution``) Keras scripts train in.
"""

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.migration import ops as npu_ops
from npu_bridge.migration.session_helpers import npu_config_proto

__all__ = ["init_resource", "shutdown_resource", "close_session",
           "set_keras_session_npu_config", "npu_clear_session", "get_npu_rank_id",
           "get_npu_rank_size", "get_npu_local_rank_id", "get_npu_local_rank_size",
           "NpuEmptyHook"]


def _config(config, function):
    if config is not None and not isinstance(config, tf.compat.v1.ConfigProto):
        raise TypeError("%s config must be a tf.compat.v1.ConfigProto or None; got %s"
                        % (function, type(config).__name__))
    return npu_config_proto(config)


def init_resource(config=None):
    """``(session, npu_shutdown_op)``: a session with the NPU config, after the init op ran."""
    config = _config(config, "init_resource")
    npu_init = npu_ops.initialize_system()
    npu_shutdown = npu_ops.shutdown_system()
    sess = tf.compat.v1.Session(config=config)
    sess.run(npu_init)
    return sess, npu_shutdown


def shutdown_resource(sess, npu_shutdown):
    """Runs the shutdown op returned by ``init_resource`` (a no-op here)."""
    sess.run(npu_shutdown)


def close_session(sess):
    """Closes ``sess``."""
    sess.close()


def set_keras_session_npu_config(config=None):
    """A session with the NPU config, made the Keras backend session; returns it."""
    sess = tf.compat.v1.Session(config=_config(config, "set_keras_session_npu_config"))
    tf.compat.v1.keras.backend.set_session(sess)
    return sess


def npu_clear_session(config=None):
    """Keras ``clear_session()``, then a fresh NPU-config backend session (returned)."""
    tf.keras.backend.clear_session()
    return set_keras_session_npu_config(config)


def get_npu_rank_id():
    """This process's rank (``RANK_ID``; 0 when single-process)."""
    return runtime.rank_info().rank_id


def get_npu_rank_size():
    """The number of ranks (``RANK_SIZE``; 1 when single-process)."""
    return runtime.rank_info().rank_size


def get_npu_local_rank_id():
    """This rank's index among the ranks on this host."""
    return runtime.local_rank_info()[1]


def get_npu_local_rank_size():
    """The number of ranks on this host."""
    return runtime.local_rank_info()[0]


class NpuEmptyHook(tf.compat.v1.train.SessionRunHook):
    """A SessionRunHook that does nothing (the migration tool's placeholder)."""
