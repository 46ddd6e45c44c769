"""``tf.contrib.tfprof``: ``model_analyzer`` and ``ProfileContext``, on TF 2.15's profiler.

``model_analyzer.print_model_analysis(graph, run_meta=None, op_log=None,
tfprof_cmd='scope', tfprof_options=TRAINABLE_VARS_PARAMS_STAT_OPTIONS)``
prints and returns ``tf.compat.v1.profiler.profile``'s analysis; the option
dicts (``TRAINABLE_VARS_PARAMS_STAT_OPTIONS``, ``FLOAT_OPS_OPTIONS``,
``PRINT_ALL_TIMING_MEMORY``) are ``ProfileOptionBuilder``'s.
``ProfileContext(profile_dir, trace_steps=None, dump_steps=None,
enabled=True, debug=False)``: when ``enabled``, the block runs under
TensorFlow's profiler and the trace lands in ``profile_dir`` (TensorBoard's
profile format, not TF 1.15's tfprof files); disabled, it does nothing.
"""

import types

import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr

_builder = tf.compat.v1.profiler.ProfileOptionBuilder


def _print_model_analysis(graph, run_meta=None, op_log=None, tfprof_cmd="scope",
                          tfprof_options=None):
    options = tfprof_options if tfprof_options is not None \
        else _builder.trainable_variables_parameter()
    return tf.compat.v1.profiler.profile(graph, run_meta=run_meta, op_log=op_log,
                                         cmd=tfprof_cmd, options=options)


model_analyzer = types.ModuleType("tensorflow.contrib.tfprof.model_analyzer",
                                  "contrib's model analysis on TF 2.15's profiler (see tfprof).")
model_analyzer.print_model_analysis = _print_model_analysis
model_analyzer.TRAINABLE_VARS_PARAMS_STAT_OPTIONS = _builder.trainable_variables_parameter()
model_analyzer.FLOAT_OPS_OPTIONS = _builder.float_operation()
model_analyzer.PRINT_ALL_TIMING_MEMORY = _builder.time_and_memory()
model_analyzer.Profiler = tf.compat.v1.profiler.Profiler
model_analyzer.profile = tf.compat.v1.profiler.profile
model_analyzer.advise = tf.compat.v1.profiler.advise
model_analyzer.__getattr__ = not_provided_getattr("tf.contrib.tfprof.model_analyzer")


class ProfileContext:
    """Profiles the ``with`` block into ``profile_dir`` when ``enabled``."""

    def __init__(self, profile_dir, trace_steps=None, dump_steps=None, enabled=True,
                 debug=False):
        del trace_steps, dump_steps, debug  # TensorFlow's profiler traces the whole block
        self._profile_dir = profile_dir
        self._enabled = bool(enabled)

    def __enter__(self):
        if self._enabled:
            tf.profiler.experimental.start(self._profile_dir)
        return self

    def __exit__(self, *exc_info):
        if self._enabled:
            tf.profiler.experimental.stop()
        return False


__getattr__ = not_provided_getattr("tf.contrib.tfprof")
