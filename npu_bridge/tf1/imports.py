"""The import rule of the TF1 mode: who gets the TF1 API for ``import tensorflow``.

Two pieces, installed by ``mode.activate()`` and by nothing else:

- A wrapper around ``builtins.__import__``. When *script code* runs ``import
  tensorflow`` / ``import tensorflow.x.y [as z]`` / ``from tensorflow import
  name``, it hands back the TF1 module (``facade``) instead of the real one.
  Script code is the script (``__main__``) and every module that is not
  library code; library code is npu_bridge itself and anything under the
  interpreter's stdlib or site-packages (TensorFlow, Keras, the Estimator,
  tf-slim, TensorBoard ...), except the package of a module run with
  ``npu-bridge-run -m`` (``script_packages``), which is the script's own.
  Library code always gets the real TF2 module, so npu_bridge's estimator,
  device loop and collectives run on TF2 as outside the mode. ``from
  tensorflow.python.x import y`` and ``tensorflow.compat.v1`` are untouched
  for everyone, except the Keras paths (``tensorflow.keras...``,
  ``tensorflow.python.keras...``, ``keras...``), which script code gets as
  TF 1.15's Keras (``keras_era``), and ``tensorflow_core...``, read as
  ``tensorflow...`` (``removed``).  A direct ``__import__(name)`` call is
  judged by its caller, and ``importlib.import_module`` is wrapped to follow
  the same rule, so both give script code what ``import`` gives it.
- A meta path finder that makes ``tensorflow.contrib[.part[.sub]]``
  importable as the modules ``contrib.load`` gives, and makes an unprovided
  part fail with ``ContribModuleNotProvided``.
"""

import builtins
import importlib
import importlib.abc
import importlib.util
import os
import site
import sys
import sysconfig

from npu_bridge.tf1 import contrib, keras_era, removed
from npu_bridge.tf1.errors import ContribModuleNotProvided
from npu_bridge.tf1.facade import tf1_module, v1_counterpart

_NPU_BRIDGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _library_roots():
    roots = {_NPU_BRIDGE_DIR}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path))
    try:
        roots.update(os.path.realpath(p) for p in site.getsitepackages())
    except AttributeError:  # old virtualenv's site module
        pass
    if site.ENABLE_USER_SITE and site.getusersitepackages():
        roots.add(os.path.realpath(site.getusersitepackages()))
    return tuple(root.rstrip(os.sep) + os.sep for root in roots)


_LIBRARY_ROOTS = None
_verdicts = {}
script_packages = set()  # top-level packages that are script code wherever they live


def is_script_code(module_globals):
    """True when the module owning ``module_globals`` should see the TF1 API."""
    global _LIBRARY_ROOTS
    if module_globals is None:
        return False
    name = module_globals.get("__name__") or ""
    filename = module_globals.get("__file__")
    key = (name, filename)
    verdict = _verdicts.get(key)
    if verdict is None:
        if name == "npu_bridge" or name.startswith("npu_bridge."):
            verdict = False
        elif name == "__main__" or name.split(".")[0] in script_packages:
            verdict = True
        elif not filename:
            verdict = True  # code run with exec / -c
        else:
            if _LIBRARY_ROOTS is None:
                _LIBRARY_ROOTS = _library_roots()
            verdict = not os.path.realpath(filename).startswith(_LIBRARY_ROOTS)
        _verdicts[key] = verdict
    return verdict


class _ImportWrapper:
    """``builtins.__import__`` that gives script code the TF1 module."""

    def __init__(self, real_import):
        self.real_import = real_import

    def __call__(self, name, globals=None, locals=None, fromlist=(), level=0):
        if globals is None:  # a direct __import__(name) call: judged by its caller
            globals = sys._getframe(1).f_globals
        if not level and name.startswith(_RULED) and is_script_code(globals):
            name = removed.as_tensorflow(name)
            era = keras_era.script_module(name)
            if era is not None:
                top = name.partition(".")[0]
                return era if fromlist or name == top else self(top, globals)
        try:
            module = self.real_import(name, globals, locals, fromlist, level)
        except ModuleNotFoundError as err:
            # A submodule of a contrib part that is a plain module (no __path__)
            # fails before any finder is asked; name the gap the same way.
            if not level and (err.name or "").startswith("tensorflow.contrib.") \
                    and not isinstance(err, ContribModuleNotProvided):
                raise ContribModuleNotProvided(err.name) from None
            raise
        if level or not name.startswith("tensorflow") or not (
                name == "tensorflow" or name.startswith("tensorflow.")):
            return module
        if name.startswith("tensorflow.contrib"):
            _hide_contrib_from_real_tensorflow()
        if is_script_code(globals):
            if not fromlist or name == "tensorflow":
                return tf1_module()
            return v1_counterpart(name) or module
        return module


_RULED = ("tensorflow", "keras")  # the names whose imports the rule may change
_LEAF = ("__name__",)  # a fromlist importing nothing more: __import__ returns the named module


def _import_module_wrapper(real_import_module):
    """``importlib.import_module`` giving script code what its ``import`` statements give it."""

    def import_module(name, package=None):
        caller = sys._getframe(1).f_globals
        if name.startswith(_RULED) and is_script_code(caller):
            return builtins.__import__(name, caller, None, _LEAF, 0)
        return real_import_module(name, package)

    import_module.real_import_module = real_import_module
    return import_module


def _hide_contrib_from_real_tensorflow():
    # Importing tensorflow.contrib sets it as an attribute of the real module;
    # TF2 code must keep seeing a tensorflow without contrib.
    real = sys.modules.get("tensorflow")
    if real is not None:
        vars(real).pop("contrib", None)


class _AliasLoader(importlib.abc.Loader):
    """Gives the module ``contrib.load`` finds; an existing module keeps its own ``__spec__``."""

    _own_spec = None

    def create_module(self, spec):
        module = contrib.load(spec.name)
        self._own_spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        if self._own_spec is not None:
            module.__spec__ = self._own_spec


class ContribFinder(importlib.abc.MetaPathFinder):
    """Finds ``tensorflow.contrib...`` as aliases of the provided parts."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "tensorflow.contrib" and not fullname.startswith("tensorflow.contrib."):
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader())


def install():
    """Installs the import wrapper and the contrib finder (once)."""
    if not isinstance(builtins.__import__, _ImportWrapper):
        builtins.__import__ = _ImportWrapper(builtins.__import__)
        importlib.import_module = _import_module_wrapper(importlib.import_module)
    if not any(isinstance(f, ContribFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, ContribFinder())


def installed():
    return isinstance(builtins.__import__, _ImportWrapper)
