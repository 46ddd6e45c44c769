"""``tf.contrib`` in the TF1 mode: the parts migrated scripts use, mapped to TF 2.15.

Each part is a module named in ``PARTS``: tf-slim where it maintains the
code (``slim``, most of ``layers`` and ``framework``), TensorFlow 2.15 where
the API moved (``data``, ``tpu``, ``rnn``, ``summary``), small code of ours
where nobody maintains it (``training.HParams``, ``opt``'s optimizers,
``cudnn_rnn`` layers, ``image`` transforms, ``crf``).  ``tf.contrib.x`` and ``import
tensorflow.contrib.x`` load a part on first use; contrib's internal paths
(``tensorflow.contrib.layers.python.layers ...``) are ``internal_paths``.  A
part or name that is not provided raises ``NotProvidedError`` naming it.
``REFUSED`` parts import (scripts import them at the top and use them only
behind a flag) but each of their names raises, saying what to use instead.
docs/tf1_mode.md has the table of what each part provides.
"""

import importlib
import importlib.util
import types

from npu_bridge.tf1.contrib import internal_paths
from npu_bridge.tf1.errors import (ContribAttributeNotProvided, ContribModuleNotProvided,
                                   not_provided_getattr)

PARTS = {
    "cluster_resolver": "npu_bridge.tf1.contrib.cluster_resolver",
    "compiler": "npu_bridge.tf1.contrib.compiler",
    "crf": "npu_bridge.tf1.contrib.crf",
    "cudnn_rnn": "npu_bridge.tf1.contrib.cudnn_rnn",
    "data": "npu_bridge.tf1.contrib.data",
    "distribute": "npu_bridge.tf1.contrib.distribute",
    "distributions": "npu_bridge.tf1.contrib.distributions",
    "estimator": "npu_bridge.tf1.contrib.estimator",
    "framework": "npu_bridge.tf1.contrib.framework",
    "image": "npu_bridge.tf1.contrib.image",
    "layers": "npu_bridge.tf1.contrib.layers",
    "learn": "npu_bridge.tf1.contrib.learn",
    "lookup": "npu_bridge.tf1.contrib.lookup",
    "losses": "npu_bridge.tf1.contrib.losses",
    "metrics": "npu_bridge.tf1.contrib.metrics",
    "mixed_precision": "npu_bridge.tf1.contrib.mixed_precision",
    "opt": "npu_bridge.tf1.contrib.opt",
    "rnn": "npu_bridge.tf1.contrib.rnn",
    "seq2seq": "npu_bridge.tf1.contrib.seq2seq",
    "slim": "tf_slim",
    "summary": "npu_bridge.tf1.contrib.summary",
    "tfprof": "npu_bridge.tf1.contrib.tfprof",
    "tpu": "npu_bridge.tf1.contrib.tpu",
    "training": "npu_bridge.tf1.contrib.training",
    "util": "npu_bridge.tf1.contrib.util",
}

# Parts not provided on purpose, and what does their job.
REFUSED = {
    "quantize": "train in float32 here; for quantization-aware training on TF 2.x use the "
                "TensorFlow Model Optimization toolkit (tfmot.quantization.keras.quantize_model)",
    "legacy_seq2seq": "tf.compat.v1.nn.dynamic_rnn with your own decoder loop; for the loss, "
                      "tf.contrib.seq2seq.sequence_loss",
    "graph_editor": "edit the GraphDef (tf.compat.v1.get_default_graph().as_graph_def()) "
                    "and import it with tf.import_graph_def",
}


_refused_modules = {}


def _refused_part(name):
    """A module for a REFUSED part: it imports, each of its names raises with the advice."""
    if name not in _refused_modules:
        module = types.ModuleType("tensorflow.contrib." + name,
                                  "Not provided by npu_bridge's TF1 mode: " + REFUSED[name])
        module.__getattr__ = not_provided_getattr("tf.contrib." + name, instead=REFUSED[name])
        module.__path__ = []  # its internal paths are asked of load(), which refuses them
        _refused_modules[name] = module
    return _refused_modules[name]


def load(fullname):
    """The module behind ``tensorflow.contrib[.part[.sub]]``; ContribModuleNotProvided if none."""
    parts = fullname.split(".")[2:]
    if parts and parts[0] in REFUSED:
        if len(parts) == 1:
            return _refused_part(parts[0])
        raise ContribModuleNotProvided(fullname, REFUSED[parts[0]])
    module = internal_paths.load(fullname) if len(parts) > 1 else None
    if module is None:
        target = module_for(fullname)
        if target is None:
            raise ContribModuleNotProvided(fullname)
        module = importlib.import_module(target)
    if len(parts) == 1 and not hasattr(module, "__path__") \
            and internal_paths.has_paths_below(fullname):
        module.__path__ = []  # our single-module part: tensorflow.contrib.<part>.python... below it
    return module


def module_for(fullname):
    """The module behind ``tensorflow.contrib[.part[.sub]]``, or None if not provided.

    A deeper name exists only inside a part that is a package (tf-slim's
    ``nets``, ``data`` ...); our own parts are single modules.
    """
    parts = fullname.split(".")[2:]
    if not parts:
        return __name__
    if parts[0] not in PARTS:
        return None
    target = ".".join([PARTS[parts[0]]] + parts[1:])
    if len(parts) == 1:
        return target
    try:
        return target if importlib.util.find_spec(target) is not None else None
    except ModuleNotFoundError:  # a parent on the way is not a package
        return None


def __getattr__(name):
    if name in PARTS:
        module = importlib.import_module(PARTS[name])
        globals()[name] = module
        return module
    if name in REFUSED:
        return _refused_part(name)
    if name.startswith("__"):
        raise AttributeError(name)
    raise ContribAttributeNotProvided("tf.contrib." + name)


def __dir__():
    return sorted(set(globals()) | set(PARTS))
