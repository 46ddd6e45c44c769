"""Where a tf.contrib part the TF1 mode does not provide lives on, when it does.

The error for a part that is not provided points there, so a user knows
what to write instead.  Only parts whose API moved whole belong here: the
tests import every home and check it.  Parts that went to other projects
(seq2seq, image, distributions: TensorFlow Addons or Probability) or
nowhere (learn, quantize) have no entry, and their error says nothing more
than that they are not provided.
"""

# tf.contrib part -> (its home, how the error says it)
HOMES = {
    "cluster_resolver": ("tf.distribute.cluster_resolver",
                         "TensorFlow 2.15 has it as tf.distribute.cluster_resolver"),
    "keras": ("tf.keras", "TensorFlow 2.15 has it as tf.keras"),
    "lite": ("tf.lite", "TensorFlow 2.15 has it as tf.lite"),
    "signal": ("tf.signal", "TensorFlow 2.15 has it as tf.signal"),
    "tensorrt": ("tf.experimental.tensorrt", "TensorFlow 2.15 has it as tf.experimental.tensorrt"),
    "mixed_precision": ("npu_bridge.estimator.npu.npu_loss_scale_manager",
                        "npu_bridge has its FixedLossScaleManager and "
                        "ExponentialUpdateLossScaleManager in "
                        "npu_bridge.estimator.npu.npu_loss_scale_manager, for NPULossScaleOptimizer"),
}


def hint_for(name):
    """What to use instead of the contrib name ``name`` (``tf.contrib.x...``), or None."""
    parts = name.split(".")
    if "contrib" not in parts or parts.index("contrib") + 1 >= len(parts):
        return None
    entry = HOMES.get(parts[parts.index("contrib") + 1])
    return entry[1] if entry else None
