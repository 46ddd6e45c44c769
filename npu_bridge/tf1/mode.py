"""Switching the TF1 mode on, and asking whether it is on.

``activate()`` is what ``npu-bridge-run`` does before it runs the script:
graph mode with TF1 behaviour (``tf.compat.v1.disable_v2_behavior()``:
reference variables, v1 control flow, v1 shapes, no eager), the import rule
of ``imports``, ``tensorflow.contrib``, the TF 1.15 internal names
TensorFlow 2.15 moved (``moved_internals``), TF 1.15's Keras (``keras_era``)
and the removed modules and numpy aliases of that time (``removed``).  It
cannot be undone in a process, which is why only the command calls it;
importing npu_bridge never does.
"""

import tensorflow as _real_tf

from npu_bridge.tf1 import imports, keras_era, moved_internals, removed
from npu_bridge.tf1.facade import tf1_module


def activate():
    """Turns the TF1 mode on for this process (idempotent)."""
    if imports.installed():
        return
    _real_tf.compat.v1.disable_v2_behavior()
    moved_internals.install()
    keras_era.install()
    removed.install()
    imports.install()


def is_active():
    return imports.installed()


def script_tensorflow():
    """The ``tensorflow`` a script sees: the TF1 module in the mode, else the real one."""
    return tf1_module() if is_active() else _real_tf
