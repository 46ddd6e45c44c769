"""``tensorflow_core``: TF 1.15's name of the package behind ``tensorflow``.

TF 1.15 installed its code as ``tensorflow_core`` with ``tensorflow`` a thin
loader over it, and scripts of that time import either (``import
tensorflow_core as tf``, ``from tensorflow_core.python.tools import
freeze_graph``, ``tensorflow_core.contrib``).  In the TF1 mode the import rule
reads a ``tensorflow_core`` name of script code as the same ``tensorflow``
name, so both give the same modules.
"""

ALIAS = "tensorflow_core"


def as_tensorflow(name):
    """``name`` with a leading ``tensorflow_core`` read as ``tensorflow``; other names unchanged."""
    if name == ALIAS or name.startswith(ALIAS + "."):
        return "tensorflow" + name[len(ALIAS):]
    return name
