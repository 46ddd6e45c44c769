"""``tf.contrib`` in the TF1 mode: the parts migrated scripts use, mapped to TF 2.15.

Each part is a module named in ``PARTS``: tf-slim where it maintains the
code (``slim``, most of ``layers`` and ``framework``), TensorFlow 2.15 where
the API moved (``data``, ``tpu``, ``rnn``, ``summary``), small code of ours
where nobody maintains it (``training.HParams``, ``opt``'s decoupled weight
decay, ``cudnn_rnn`` layers).  ``tf.contrib.x`` and ``import
tensorflow.contrib.x`` load a part on first use; a part or name that is not
provided raises ``NotProvidedError`` naming it.  docs/tf1_mode.md has the
table of what each part provides.
"""

import importlib
import importlib.util

from npu_bridge.tf1.errors import ContribAttributeNotProvided

PARTS = {
    "cudnn_rnn": "npu_bridge.tf1.contrib.cudnn_rnn",
    "data": "npu_bridge.tf1.contrib.data",
    "distribute": "npu_bridge.tf1.contrib.distribute",
    "framework": "npu_bridge.tf1.contrib.framework",
    "layers": "npu_bridge.tf1.contrib.layers",
    "lookup": "npu_bridge.tf1.contrib.lookup",
    "opt": "npu_bridge.tf1.contrib.opt",
    "rnn": "npu_bridge.tf1.contrib.rnn",
    "slim": "tf_slim",
    "summary": "npu_bridge.tf1.contrib.summary",
    "tpu": "npu_bridge.tf1.contrib.tpu",
    "training": "npu_bridge.tf1.contrib.training",
    "util": "npu_bridge.tf1.contrib.util",
}


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
    if name.startswith("__"):
        raise AttributeError(name)
    raise ContribAttributeNotProvided("tf.contrib." + name)


def __dir__():
    return sorted(set(globals()) | set(PARTS))
