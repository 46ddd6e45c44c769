"""``tf.contrib.metrics``: tf-slim's ``metrics`` (the same code).

The ``streaming_*`` metrics (``streaming_accuracy``, ``streaming_mean``,
``streaming_auc``, ``streaming_pearson_correlation``,
``streaming_mean_iou``, ``streaming_concat`` ...), ``accuracy`` (a plain,
non-streaming op) and ``aggregate_metric_map`` / ``aggregate_metrics``.
"""

import importlib

from npu_bridge.tf1.errors import first_of, not_provided_getattr

__getattr__ = not_provided_getattr("tf.contrib.metrics",
                                   first_of(importlib.import_module("tf_slim.metrics")))
