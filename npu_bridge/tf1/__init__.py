"""The TF1 run mode: TensorFlow 1.15 scripts run unchanged on TensorFlow 2.15.

``npu-bridge-run script.py args`` (``python -m npu_bridge.run``) runs a script
so that its ``import tensorflow as tf`` gives the TF1 API in graph mode (what
``tf.compat.v1`` gives after ``disable_v2_behavior()``) plus ``tf.contrib``.
What lives here:

- ``mode``: switching the mode on (graph mode, the import rule, contrib);
- ``imports``: the import rule (who gets the TF1 API) and the
  ``tensorflow.contrib`` import aliases;
- ``facade``: the module a script gets for ``tensorflow``;
- ``contrib/``: the ``tf.contrib`` parts, mapped to TF 2.15, tf-slim or small
  code of ours, and contrib's internal paths; ``errors``: the error for
  contrib names not provided;
- ``moved_internals/``: the TF 1.15 internal names TF 2.15 moved, put back
  in TensorFlow's modules while the mode is on (only added, never replaced);
- ``runner``: the command (runpy semantics, as ``python script.py``).

Outside the mode nothing here is active: importing npu_bridge never changes
what ``import tensorflow`` gives.  Library code (npu_bridge itself, TensorFlow,
Keras, the Estimator, tf-slim, anything installed) always sees the real TF2
``tensorflow`` module, also inside the mode.
"""

from npu_bridge.tf1.errors import NotProvidedError
from npu_bridge.tf1.mode import activate, is_active, script_tensorflow

__all__ = ["activate", "is_active", "script_tensorflow", "NotProvidedError"]
