"""Which module script code gets for a Keras import path in the TF1 mode.

TF 1.15 scripts reach Keras by three roots: ``tensorflow.keras`` (TF 1.15's
``tf.keras``), ``tensorflow.python.keras`` (the modules behind it) and
standalone ``keras`` 2.2/2.3 of that time (``keras.layers.convolutional``,
``keras.engine.topology`` ...).  In TensorFlow 2.15 these are three different
things: Keras 2.15's v2 API, an older second copy of Keras kept inside
TensorFlow, and Keras 2.15's v2 API again; layers from two copies cannot
share a model, and the v2 optimizers refuse ``lr=`` and ``decay=``.

In the mode, script code gets one Keras under all three roots: Keras 2.15
as TF 1.15's ``tf.keras`` was, i.e. its v1 API (``tf.compat.v1.keras``:
optimizers that take ``lr``, ``decay`` and ``epsilon=None`` and decay the
rate as ``lr / (1 + decay * iterations)``, BatchNormalization v1), with the
module paths of that time resolving to the same classes.

A path below a root (``layers.convolutional``) is looked up, in order, in
the modules of its row in ``RENAMED`` (paths Keras 2.15 renamed or dropped),
or else in the v1 API module of that path and Keras 2.15's own module of it
(``keras.src.<path>``).  When exactly one module is found and no row lies
below the path, that module itself is given; otherwise an ``EraModule`` that
looks names up in the modules in order and resolves its sub-paths by the same
rule.  A path with no module raises ``KerasModuleNotProvided``.  Library code
never sees any of this: the import rule (``tf1.imports``) asks here only for
script code.
"""

import importlib
import importlib.util
import types

from npu_bridge.tf1.errors import NotProvidedError

ROOTS = ("tensorflow.python.keras", "tensorflow.keras", "keras")
PYTHON_PACKAGE = "tensorflow.python"  # its ``keras`` attribute is a root

# TF 1.15's tf.keras said "2.2.4-tf"; "2.2.4" is what today's version parsers accept.
ERA_VERSION = "2.2.4"
V1_API = "keras.api._v1.keras"  # Keras 2.15's v1 API: tf.compat.v1.keras
SOURCE = "keras.src"  # Keras 2.15's modules
DROPPED = "npu_bridge.tf1.keras_era.dropped:"  # + a namespace of names Keras 2.15 dropped

_V1_LAYERS = (V1_API + ".layers", DROPPED + "LAYERS")

# Paths of that time (below a root) that Keras 2.15 renamed or dropped, and the
# modules that hold their names now ("module:attribute" names a namespace in a
# module).  The layer modules of Keras 2.2 and TF 1.15 were star-imported into
# ``layers``, so each maps to the v1 layers API.
RENAMED = {
    "layers": (V1_API + ".layers", SOURCE + ".layers", DROPPED + "LAYERS"),
    "layers.advanced_activations": _V1_LAYERS,
    "layers.convolutional": _V1_LAYERS,
    "layers.convolutional_recurrent": _V1_LAYERS,
    "layers.core": _V1_LAYERS,
    "layers.cudnn_recurrent": _V1_LAYERS,
    "layers.embeddings": _V1_LAYERS,
    "layers.local": _V1_LAYERS,
    "layers.merge": _V1_LAYERS + (SOURCE + ".layers.merging.base_merge",),
    "layers.noise": _V1_LAYERS,
    "layers.normalization": _V1_LAYERS,
    "layers.pooling": _V1_LAYERS,
    "layers.recurrent": _V1_LAYERS,
    "layers.wrappers": _V1_LAYERS,
    "engine": (SOURCE + ".engine", V1_API, SOURCE + ".engine.base_layer",
               SOURCE + ".engine.input_layer", SOURCE + ".utils.layer_utils", DROPPED + "ENGINE"),
    "engine.topology": (SOURCE + ".engine.base_layer", SOURCE + ".engine.input_layer",
                        SOURCE + ".engine.input_spec", SOURCE + ".engine.functional",
                        SOURCE + ".engine.node", SOURCE + ".utils.layer_utils", DROPPED + "ENGINE"),
    "engine.network": (SOURCE + ".engine.functional", DROPPED + "ENGINE"),
    "backend": (V1_API + ".backend", SOURCE + ".backend"),
    "backend.tensorflow_backend": (SOURCE + ".backend",),
    "optimizers": (V1_API + ".optimizers",),
    "utils": (V1_API + ".utils", SOURCE + ".utils", DROPPED + "UTILS"),
    "utils.generic_utils": (SOURCE + ".utils.generic_utils", SOURCE + ".saving.object_registration",
                            SOURCE + ".saving.legacy.serialization"),
    "utils.multi_gpu_utils": (DROPPED + "UTILS",),
    "mixed_precision": (V1_API + ".mixed_precision",),
    "mixed_precision.experimental": (SOURCE + ".mixed_precision.policy",
                                     V1_API + ".mixed_precision",
                                     DROPPED + "MIXED_PRECISION_EXPERIMENTAL"),
}

# Paths with a row at or below them: their module is always an EraModule.
_BRANCHES = frozenset(
    ".".join(path.split(".")[:i]) for path in RENAMED for i in range(len(path.split(".")) + 1))


class KerasModuleNotProvided(NotProvidedError, ModuleNotFoundError):
    """``import`` of a Keras module path of TF 1.15's time that Keras 2.15 has no module for."""

    def __init__(self, name):
        super().__init__(
            "%s is not provided by npu_bridge's TF1 mode: Keras 2.15 has no module for that "
            "path (see docs/tf1_mode.md for the Keras paths provided)" % name, name=name)


class EraModule(types.ModuleType):
    """A module path of that time: names from ``sources`` in order, sub-paths as paths.

    Attributes are resolved on first use and cached; ``__all__`` (for ``from
    ... import *``) is every public name of the sources.  A root (``keras``,
    ``tf.keras``) has ``__version__`` ``ERA_VERSION``.
    """

    def __init__(self, name, sources):
        super().__init__(name)
        self._era_sources = tuple(sources)

    def __getattr__(self, attr):
        if attr == "__all__":
            value = sorted({n for source in self._era_sources for n in _public_names(source)})
        elif attr == "__version__" and self.__name__ in ROOTS:
            value = ERA_VERSION
        elif attr.startswith("__"):
            raise AttributeError(attr)
        else:
            value = self._era_lookup(attr)
        setattr(self, attr, value)
        return value

    def __dir__(self):
        return sorted(set(self.__dict__) | set(self.__all__))

    def __repr__(self):
        return "<module %r (Keras as in TF 1.15, npu_bridge's TF1 mode)>" % self.__name__

    def _era_lookup(self, attr):
        child = self.__name__ + "." + attr
        if _is_branch(child):
            return script_module(child)
        for source in self._era_sources:
            if hasattr(source, attr):
                return getattr(source, attr)
        try:
            return self._era_child(child)
        except ModuleNotFoundError:
            raise AttributeError("module %r has no attribute %r" % (self.__name__, attr)) from None

    def _era_child(self, child):
        return script_module(child)


class _PythonPackage(EraModule):
    """``tensorflow.python`` for script code: the real package, with Keras of that era as ``keras``."""

    def _era_child(self, child):
        return importlib.import_module(child)


_modules = {}  # name -> module given; built outside any lock (building imports modules)


def script_module(name):
    """The module script code gets for ``name``, or None when ``name`` is no Keras path.

    Raises ``KerasModuleNotProvided`` for a Keras path with no module.
    """
    root = _root_of(name)
    if root is None and name != PYTHON_PACKAGE:
        return None
    module = _modules.get(name)
    if module is None:
        module = _modules.setdefault(name, _build(name, root))
    return module


def _root_of(name):
    for root in ROOTS:
        if name == root or name.startswith(root + "."):
            return root
    return None


def _is_branch(name):
    root = _root_of(name)
    return root is not None and name[len(root) + 1:] in _BRANCHES


def _build(name, root):
    if root is None:
        return _PythonPackage(name, [importlib.import_module(PYTHON_PACKAGE)])
    path = name[len(root) + 1:]
    if path in RENAMED:
        sources = [_source(reference) for reference in RENAMED[path]]
    else:
        sources = [m for m in map(_existing_module, _default_sources(path)) if m is not None]
    if not sources:
        raise KerasModuleNotProvided(name)
    if len(sources) == 1 and path not in _BRANCHES:
        return sources[0]
    return EraModule(name, sources)


def _source(reference):
    module_name, _, namespace = reference.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, namespace) if namespace else module


def _default_sources(path):
    if not path:
        return (V1_API,)
    return (V1_API + "." + path, SOURCE + "." + path)


def _existing_module(name):
    try:
        if importlib.util.find_spec(name) is None:
            return None
    except ModuleNotFoundError:  # a parent on the way is missing or not a package
        return None
    return importlib.import_module(name)


def _public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")
                 and not isinstance(getattr(module, n, None), types.ModuleType)]
    return names
