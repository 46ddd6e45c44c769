"""What TF 1.15 scripts import that TensorFlow 2.15 and numpy 1.24 removed, for the TF1 mode.

- ``finder`` and ``mnist``: ``tensorflow.examples.tutorials.mnist.input_data``
  (``read_data_sets`` on local idx files, never the network);
- ``tensorflow_core``: ``tensorflow_core`` read as ``tensorflow`` by the import rule;
- ``numpy_aliases``: ``np.float``, ``np.int``, ``np.bool``, ``np.object`` ...
  with their meaning before numpy 1.24.

``install()`` is called by ``tf1.mode.activate``; outside the mode nothing
here is active.
"""

from npu_bridge.tf1.removed import finder, numpy_aliases
from npu_bridge.tf1.removed.tensorflow_core import as_tensorflow


def install():
    """Installs the removed modules' finder and numpy's removed aliases (idempotent)."""
    finder.install()
    numpy_aliases.install()


__all__ = ["install", "as_tensorflow"]
