"""``tensorflow.contrib`` by its internal paths: the same modules as the public parts.

TF 1.15 scripts often import contrib from where its code lived
(``from tensorflow.contrib.layers.python.layers import utils``,
``from tensorflow.contrib.framework.python.ops import add_arg_scope``,
``tensorflow.contrib.tpu.python.tpu.tpu_config``,
``tensorflow.contrib.slim.python.slim.nets.resnet_v1``).  ``ALIASES`` maps
each such module to where that code lives today (tf-slim, TensorFlow 2.15,
our parts); a module below an alias is the same module below its target
(``...slim.python.slim.nets.resnet_v1`` is ``tf_slim.nets.resnet_v1``).
``PACKAGES`` are TF 1.15 packages whose ``__init__`` re-exported a public
part (``framework.python.ops`` gave ``add_arg_scope`` ...).  The folders on
the way (``tensorflow.contrib.layers.python``) are small namespace modules.
So ``tensorflow.contrib.layers.python.layers.batch_norm is
tf.contrib.layers.batch_norm``.
"""

import importlib
import types

from npu_bridge.tf1.errors import ContribAttributeNotProvided, ContribModuleNotProvided

_C = "tensorflow.contrib."

ALIASES = {
    _C + "cudnn_rnn.python.layers.cudnn_rnn": "npu_bridge.tf1.contrib.cudnn_rnn",
    _C + "cudnn_rnn.python.ops.cudnn_rnn_ops": "npu_bridge.tf1.contrib.cudnn_rnn",
    _C + "framework.python.framework.checkpoint_utils":
        "tensorflow.python.training.checkpoint_utils",
    _C + "framework.python.ops.arg_scope": "tf_slim.ops.arg_scope",
    _C + "framework.python.ops.audio_ops": "tensorflow.python.ops.gen_audio_ops",
    _C + "framework.python.ops.variables": "tf_slim.ops.variables",
    _C + "layers.python.layers": "tf_slim.layers",
    _C + "learn.python.learn.datasets.base": "npu_bridge.tf1.contrib.learn",
    # TF 1.15's tutorials module re-exported this one; the TF1 mode provides it there.
    _C + "learn.python.learn.datasets.mnist": "tensorflow.examples.tutorials.mnist.input_data",
    _C + "learn.python.learn.monitored_session": "tensorflow.python.training.monitored_session",
    _C + "rnn.python.ops.core_rnn_cell": "npu_bridge.tf1.contrib.rnn",
    _C + "rnn.python.ops.lstm_ops": "npu_bridge.tf1.contrib.rnn",
    _C + "rnn.python.ops.rnn": "npu_bridge.tf1.contrib.rnn",
    _C + "rnn.python.ops.rnn_cell": "npu_bridge.tf1.contrib.rnn",
    _C + "slim.python.slim": "tf_slim",
    _C + "tpu.python.ops": "tensorflow.python.tpu.ops",
    _C + "tpu.python.tpu": "tensorflow.python.tpu",
    _C + "training.python.training.evaluation": "tf_slim.training.evaluation",
    _C + "training.python.training.hparam": "npu_bridge.tf1.contrib.training",
    _C + "training.python.training.training": "tf_slim.training.training",
}

PACKAGES = {
    _C + "cudnn_rnn.python.layers": "npu_bridge.tf1.contrib.cudnn_rnn",
    _C + "framework.python.ops": "npu_bridge.tf1.contrib.framework",
}


# Internal paths of parts provided in part only: what to use instead.
INSTEAD = {
    _C + "seq2seq.python": "tf.contrib.seq2seq.tile_batch / sequence_loss (provided); for the "
                           "decoders, a tf.compat.v1.while_loop over your cell or TensorFlow "
                           "Addons' tfa.seq2seq",
}


def has_paths_below(fullname):
    """True when some internal path lies below ``fullname`` (so it must act as a package)."""
    prefix = fullname + "."
    return any(key.startswith(prefix) for key in list(ALIASES) + list(PACKAGES) + list(INSTEAD))


def _alias_target(fullname):
    """Today's module name for ``fullname`` under the longest alias, or None."""
    parts = fullname.split(".")
    for cut in range(len(parts), 2, -1):
        target = ALIASES.get(".".join(parts[:cut]))
        if target is not None:
            return ".".join([target] + parts[cut:])
    return None


class _InternalPackage(types.ModuleType):
    """A folder of a TF 1.15 internal path: the names ``star`` exports, then its children.

    As in TF 1.15, where the package's ``__init__`` star-imported those
    names after its submodules, a name of ``star`` wins over a submodule of
    the same name (``framework.python.ops.arg_scope`` is the function).
    """

    def __init__(self, name, star=None):
        super().__init__(name)
        self.__path__ = []
        self._star = star

    def _star_module(self):
        return importlib.import_module(self._star) if self._star else None

    def _star_name(self, name):
        """The star-imported object called ``name`` (not a module it merely imported), or None."""
        star = None if name.startswith("_") else self._star_module()
        value = getattr(star, name, None) if star is not None else None
        return None if isinstance(value, types.ModuleType) else value

    def __getattr__(self, name):
        if name.startswith("__") or name == "_star":
            raise AttributeError(name)
        value = self._star_name(name)
        if value is not None:
            return value
        child = "%s.%s" % (self.__name__, name)
        if child in ALIASES or child in PACKAGES or has_paths_below(child):
            return importlib.import_module(child)
        raise ContribAttributeNotProvided(child)

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and self._star_name(name) is not None:
            return  # the import system binding a submodule: the star-imported name stays
        super().__setattr__(name, value)


def load(fullname):
    """The module for the internal path ``fullname``, or None if it is not one."""
    target = _alias_target(fullname)
    if target is not None:
        try:
            return importlib.import_module(target)
        except ModuleNotFoundError as err:
            if not target.startswith(err.name or "?"):
                raise
            raise ContribModuleNotProvided(fullname) from None
    if fullname in PACKAGES or has_paths_below(fullname):
        return _InternalPackage(fullname, PACKAGES.get(fullname))
    for prefix, instead in INSTEAD.items():
        if fullname == prefix or fullname.startswith(prefix + "."):
            raise ContribModuleNotProvided(fullname, instead)
    return None
