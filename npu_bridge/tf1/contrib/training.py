"""``tf.contrib.training``: ``HParams`` (small code of ours) and the helpers TF 2.15 keeps.

``HParams`` holds typed hyperparameters: ``HParams(lr=0.1, layers=[2, 3])``,
``hp.lr``, ``add_hparam``, ``set_hparam`` (type-checked), ``del_hparam``,
``parse("lr=0.2,layers=[4,5]")``, ``override_from_dict``, ``values()``,
``to_json``/``parse_json``, ``get(name, default)``, ``in``.
``bucket_by_sequence_length`` is TensorFlow's; the rest of contrib.training
(``checkpoints_iterator``, ``create_train_op``, ``train``,
``evaluate_repeatedly``, ``evaluate_once``, ``wait_for_new_checkpoint``,
``SummaryAtEndHook``, ``StopAfterNEvalsHook`` ...) is tf-slim's ``training``,
the same code contrib had.
"""

import importlib
import json

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

bucket_by_sequence_length = tf.data.experimental.bucket_by_sequence_length


def _cast(name, value, like):
    """``value`` converted to the type of the existing ``like`` (bool, int, float, str, list)."""
    if isinstance(like, bool):
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("true", "1"):
                return True
            if lowered in ("false", "0"):
                return False
            raise ValueError("hparam %r is a bool; got %r" % (name, value))
        if isinstance(value, (bool, int)):
            return bool(value)
    elif isinstance(like, int) and not isinstance(value, bool):
        if isinstance(value, str):
            return int(value.strip())
        if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
            return int(value)
    elif isinstance(like, float) and not isinstance(value, bool):
        if isinstance(value, (str, int, float)):
            return float(value)
    elif isinstance(like, str):
        if isinstance(value, str):
            return value
    elif isinstance(like, list):
        if isinstance(value, str):
            value = [v for v in value.strip().strip("[]").split(",") if v.strip()]
        if isinstance(value, (list, tuple)):
            item = like[0] if like else (value[0] if value else "")
            return [_cast(name, v, item) for v in value]
    elif like is None:
        return value
    raise ValueError("hparam %r holds a %s; cannot set it to %r"
                     % (name, type(like).__name__, value))


def _split_assignments(text):
    """'a=1,b=[1,2],c=x' -> [('a', '1'), ('b', '[1,2]'), ('c', 'x')]."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    pairs = []
    for part in parts:
        if "=" not in part:
            raise ValueError("HParams.parse expects name=value pairs, got %r in %r" % (part, text))
        name, value = part.split("=", 1)
        pairs.append((name.strip(), value.strip()))
    return pairs


class HParams:
    """Named hyperparameters with fixed types, as TF 1.15's tf.contrib.training.HParams."""

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError("HParams(hparam_def=...) (an HParamDef proto) is not provided by "
                             "the TF1 mode; pass the values as keyword arguments")
        self._model_structure = model_structure
        self._names = []
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name, value):
        if name in self._names or hasattr(type(self), name):
            raise ValueError("Hyperparameter name is reserved or already used: %r" % name)
        self._names.append(name)
        setattr(self, name, list(value) if isinstance(value, tuple) else value)

    def set_hparam(self, name, value):
        if name not in self._names:
            raise ValueError("HParams has no hyperparameter %r (has %s)" % (name, self._names))
        setattr(self, name, _cast(name, value, getattr(self, name)))

    def del_hparam(self, name):
        if name in self._names:
            self._names.remove(name)
            delattr(self, name)

    def parse(self, values):
        for name, value in _split_assignments(values or ""):
            self.set_hparam(name, value)
        return self

    def override_from_dict(self, values_dict):
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_model_structure(self, model_structure):
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def values(self):
        return {name: getattr(self, name) for name in self._names}

    def to_json(self, indent=None, separators=None, sort_keys=False):
        return json.dumps(self.values(), indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def parse_json(self, values_json):
        return self.override_from_dict(json.loads(values_json))

    def get(self, key, default=None):
        return getattr(self, key) if key in self._names else default

    def __contains__(self, key):
        return key in self._names

    def __repr__(self):
        return "HParams(%s)" % ", ".join("%s=%r" % kv for kv in self.values().items())


__getattr__ = not_provided_getattr(
    "tf.contrib.training", first_of(importlib.import_module("tf_slim.training.evaluation"),
                                    importlib.import_module("tf_slim.training.training")))
