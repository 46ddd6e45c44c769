"""What ``from npu_bridge.npu_init import *`` exports as ``tf``.

The original exports TensorFlow as ``tf``, which silently rebinds the ``tf``
of a script that did ``import tensorflow.compat.v1 as tf`` first.  Here
``npu_init`` has a dynamic ``__all__``: every public name it holds, plus
``tf`` only when the importing module has no ``tf`` yet, so a script keeps
the ``tf`` it chose and a script relying on the star import still gets one.
``npu_init.tf`` is the script's TensorFlow: the TF1 module in the TF1 mode,
the real one otherwise.
"""

import sys

from npu_bridge.tf1.mode import script_tensorflow


def module_getattr(module_globals):
    """A module ``__getattr__`` giving ``tf`` and the dynamic ``__all__`` for ``module_globals``."""

    def __getattr__(name):
        if name == "tf":
            return script_tensorflow()
        if name == "__all__":
            # A later star import into the module may have brought a ``tf`` of
            # its own; drop it so ``tf`` always comes from here.
            module_globals.pop("tf", None)
            names = [n for n in module_globals if not n.startswith("_") and n != "tf"]
            importer = sys._getframe(1)  # the frame running ``from ... import *``
            if "tf" not in importer.f_locals and "tf" not in importer.f_globals:
                names.append("tf")
            return names
        raise AttributeError("module %r has no attribute %r"
                             % (module_globals.get("__name__"), name))

    return __getattr__
