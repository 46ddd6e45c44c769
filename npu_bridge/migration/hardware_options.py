"""Ascend device, memory and graph-engine settings: accepted, kept, and of no effect here.

``MemoryConfig`` (device memory policies), ``util.set_graph_exec_config``
(graph-engine options attached to a fetch), ``npu_plugin``'s global
init/shutdown of the device, ``npu_strategy.NPUStrategy`` (the device as a
distribution strategy) and ``keras_to_npu.model_to_npu_estimator``.  Each keeps
its arguments (so scripts can read them back) and logs once that it changes
nothing here; results never depend on them.  Ranks are set up by the rank
runtime, not by a strategy: ``NPUStrategy()`` returns TensorFlow's default
(single-replica) strategy, and gradients are averaged by the optimizer wrappers.
"""

import tensorflow as tf

from npu_bridge.migration.no_effect import say_once


class MemoryConfig(object):
    """Ascend device-memory policies (``atomic_clean_policy``, ``static_memory_policy``)."""

    def __init__(self, atomic_clean_policy=0, static_memory_policy=None):
        if atomic_clean_policy not in (0, 1):
            raise ValueError("MemoryConfig atomic_clean_policy must be 0 or 1; got %r"
                             % (atomic_clean_policy,))
        self.atomic_clean_policy = atomic_clean_policy
        self.static_memory_policy = static_memory_policy
        say_once("MemoryConfig", "TensorFlow's own allocator manages memory on CPU/GPU")


def set_graph_exec_config(fetch, dynamic_input=False,
                          dynamic_graph_execute_mode="dynamic_execute",
                          dynamic_inputs_shape_range=None, is_train_graph=False,
                          experimental_config=None):
    """Returns ``fetch`` unchanged (Ascend attaches graph-engine options to it)."""
    if fetch is None:
        raise ValueError("set_graph_exec_config fetch must be a tensor, op, name or a "
                         "list/tuple of them; got None")
    del dynamic_input, dynamic_graph_execute_mode, dynamic_inputs_shape_range
    del is_train_graph, experimental_config
    say_once("util.set_graph_exec_config",
             "the options steer Ascend's graph engine; TensorFlow runs the fetch as is")
    return fetch


_DEVICE = "there is no Ascend device to open or close; TensorFlow manages CPU/GPU itself"


def npu_global_init(*args, **kwargs):
    """Opens the Ascend device for the process (no-op here)."""
    del args, kwargs
    say_once("npu_plugin.npu_global_init", _DEVICE)


def npu_resource_init(*args, **kwargs):
    """Older name of ``npu_global_init`` (no-op here)."""
    del args, kwargs
    say_once("npu_plugin.npu_resource_init", _DEVICE)


def npu_global_shutdown():
    """Closes the Ascend device (no-op here)."""
    say_once("npu_plugin.npu_global_shutdown", _DEVICE)


def npu_resource_shutdown():
    """Older name of ``npu_global_shutdown`` (no-op here)."""
    say_once("npu_plugin.npu_resource_shutdown", _DEVICE)


def npu_close():
    """Releases the device at exit (no-op here)."""


def set_device_sat_mode(mode):
    """Ascend's saturation mode for float overflow (0 or 1; no-op here)."""
    if mode not in (0, 1):
        raise ValueError("set_device_sat_mode mode must be 0 or 1; got %r" % (mode,))
    say_once("npu_plugin.set_device_sat_mode", _DEVICE)


def NPUStrategy(device="/cpu:0"):  # noqa: N802 (the original is a class)
    """TensorFlow's default strategy (see the module doc)."""
    del device
    say_once("npu_strategy.NPUStrategy",
             "ranks come from RANK_SIZE/RANK_ID and the optimizer wrappers average "
             "gradients; the default (single-replica) strategy is returned")
    return tf.distribute.get_strategy()


def model_to_npu_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                           model_dir=None, checkpoint_format="saver", config=None,
                           job_start_file=""):
    """A tf.estimator.Estimator for a Keras model (``model_to_estimator``).

    The Estimator it returns runs one step per Session.run; for the device
    loop, write a model_fn for NPUEstimator.
    """
    del job_start_file
    return tf.compat.v1.keras.estimator.model_to_estimator(
        keras_model=keras_model, keras_model_path=keras_model_path,
        custom_objects=custom_objects, model_dir=model_dir, config=config,
        checkpoint_format=checkpoint_format)
