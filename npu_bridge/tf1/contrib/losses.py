"""``tf.contrib.losses``: tf-slim's ``losses`` (the same code, TF 1.15's argument order).

Contrib's loss functions take predictions/logits first
(``sigmoid_cross_entropy(logits, multi_class_labels, ...)``), unlike
``tf.losses``; tf-slim keeps them so.  ``metric_learning`` (triplet and
contrastive losses ...) is tf-slim's too.
"""

import importlib

from npu_bridge.tf1.errors import first_of, not_provided_getattr

metric_learning = importlib.import_module("tf_slim.losses.metric_learning")

__getattr__ = not_provided_getattr("tf.contrib.losses",
                                   first_of(importlib.import_module("tf_slim.losses")))
