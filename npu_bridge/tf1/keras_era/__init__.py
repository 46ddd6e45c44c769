"""TF 1.15's Keras in the TF1 mode: one Keras (2.15, as TF 1.15's ``tf.keras``) behind every spelling.

- ``paths``: the module script code gets for ``tensorflow.keras...``,
  ``tensorflow.python.keras...`` and standalone ``keras...`` paths of that time;
- ``dropped``: names Keras 2.15 dropped, as short code of ours;
- ``hooks``: Keras 2.15 classes keeping TF 1.15's private hook signatures and
  ``tensor._keras_shape``.

The import rule (``tf1.imports``) asks ``script_module`` for script code's
imports; ``install()`` (the hooks) is called by ``tf1.mode.activate``.
"""

import logging

from npu_bridge.common.log_once import log_once
from npu_bridge.tf1.keras_era.paths import KerasModuleNotProvided, script_module

__all__ = ["install", "script_module", "KerasModuleNotProvided"]


def install():
    """Gives Keras 2.15's classes the era behaviour of ``hooks`` (the TF1 mode only).

    A project that ships its own ``keras`` package shadows Keras 2.15; the TF1
    mode then starts without the hooks (they only matter to Keras 2.15's classes).
    """
    try:
        from npu_bridge.tf1.keras_era import hooks  # Keras itself loads only when the mode starts
    except ImportError as error:
        log_once("keras_era.hooks", logging.getLogger(__name__), logging.WARNING,
                 "TF1 mode: Keras 2.15 could not be imported (%s: %s); TF 1.15's Keras "
                 "behaviour is not added to it", type(error).__name__, error)
        return
    hooks.install()
