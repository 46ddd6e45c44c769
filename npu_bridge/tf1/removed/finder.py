"""Import paths of TF 1.15 modules that TensorFlow 2.15 removed, as modules of ours.

A meta path finder, installed by the TF1 mode, that makes each name in
``MODULES`` importable: as the module of ours it names, or as an empty
package when it only leads to one (``tensorflow.examples.tutorials``).  The
module of ours stays what it is (its ``__spec__`` is kept), so it is one
object under both names.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types

MODULES = {
    "tensorflow.examples": None,
    "tensorflow.examples.tutorials": None,
    "tensorflow.examples.tutorials.mnist": None,
    "tensorflow.examples.tutorials.mnist.input_data": "npu_bridge.tf1.removed.mnist",
}


class _Loader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target
        self.target_spec = None

    def create_module(self, spec):
        if self.target is None:
            package = types.ModuleType(spec.name, "A package of TF 1.15 kept by npu_bridge's TF1 mode.")
            package.__path__ = []
            return package
        module = importlib.import_module(self.target)
        self.target_spec = module.__spec__
        return module

    def exec_module(self, module):
        if self.target_spec is not None:  # the import system set the alias's spec on it
            module.__spec__ = self.target_spec


class RemovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the names of ``MODULES``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MODULES:
            return None
        target_name = MODULES[fullname]
        return importlib.util.spec_from_loader(fullname, _Loader(target_name),
                                               is_package=target_name is None)


def install():
    """Puts the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, RemovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, RemovedModuleFinder())
