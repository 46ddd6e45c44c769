"""The numpy of TF 1.15's time: ``np.float``, ``np.int``, ``np.bool``, ``np.object`` ... in the TF1 mode.

Scripts of that time use the aliases of Python's builtins that numpy
deprecated in 1.20 and removed in 1.24 (``np.float`` was ``float``, ``np.int``
was ``int``, ``np.long`` was ``int``, ``np.unicode`` was ``str`` ...), and
``np.asscalar`` (removed in 1.23).  In the mode they mean what they meant
then; the first use of each says so once (``TF1ModeWarning``).  numpy's own
module ``__getattr__`` still answers every other name; outside the mode
numpy is untouched.
"""

import numpy

from npu_bridge.tf1.notices import warn_once

# name -> what numpy < 1.24 gave for it
REMOVED = {
    "bool": bool,
    "int": int,
    "float": float,
    "complex": complex,
    "object": object,
    "str": str,
    "long": int,
    "unicode": str,
    "asscalar": lambda a: a.item(),
}


def install():
    """Makes numpy answer the removed names (idempotent)."""
    original = vars(numpy).get("__getattr__")
    if getattr(original, "tf1_era", False):
        return

    def __getattr__(name):
        value = REMOVED.get(name)
        if value is None:
            if original is None:
                raise AttributeError("module 'numpy' has no attribute %r" % name)
            return original(name)
        warn_once("numpy." + name,
                  "np.%s is %s here, as in numpy before 1.24 (npu_bridge's TF1 mode; numpy %s "
                  "removed it)" % (name, _describe(name, value), numpy.__version__))
        return value

    __getattr__.tf1_era = True
    numpy.__getattr__ = __getattr__


def _describe(name, value):
    if name == "asscalar":
        return "a.item()"
    return "the builtin " + value.__name__
