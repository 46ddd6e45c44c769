"""TF 1.15's Keras in the TF1 mode: one Keras (2.15, as TF 1.15's ``tf.keras``) behind every spelling.

- ``paths``: the module script code gets for ``tensorflow.keras...``,
  ``tensorflow.python.keras...`` and standalone ``keras...`` paths of that time;
- ``dropped``: names Keras 2.15 dropped, as short code of ours;
- ``hooks``: Keras 2.15 classes keeping TF 1.15's private hook signatures and
  ``tensor._keras_shape``.

The import rule (``tf1.imports``) asks ``script_module`` for script code's
imports; ``install()`` (the hooks) is called by ``tf1.mode.activate``.
"""

from npu_bridge.tf1.keras_era.paths import KerasModuleNotProvided, script_module

__all__ = ["install", "script_module", "KerasModuleNotProvided"]


def install():
    """Gives Keras 2.15's classes the era behaviour of ``hooks`` (the TF1 mode only)."""
    from npu_bridge.tf1.keras_era import hooks  # Keras itself loads only when the mode starts
    hooks.install()
