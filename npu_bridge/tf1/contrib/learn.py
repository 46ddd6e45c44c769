"""``tf.contrib.learn``: the few of its names TF 1.15 scripts still use beside tf.estimator.

``ModeKeys`` (``TRAIN``, ``EVAL``, ``INFER`` with TF 1.15's values 'train',
'eval', 'infer'), ``datasets.base.Datasets`` (the train/validation/test
namedtuple; ``tensorflow.contrib.learn.python.learn.datasets.base`` is this
module) and, by its internal path, ``datasets.mnist`` (the tutorials' MNIST
reader).  The rest of contrib.learn (``Estimator``, ``Experiment``,
``RunConfig`` ...) was replaced by ``tf.estimator`` in TF 1.x and is not
provided.
"""

import collections

from npu_bridge.tf1.errors import not_provided_getattr


class ModeKeys:
    """contrib.learn's mode names (``tf.estimator.ModeKeys`` calls INFER 'infer' PREDICT)."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])

_ESTIMATOR = "tf.estimator (Estimator, RunConfig, train_and_evaluate)"

__getattr__ = not_provided_getattr(
    "tf.contrib.learn",
    instead={"Estimator": _ESTIMATOR, "Experiment": "tf.estimator.train_and_evaluate",
             "RunConfig": "tf.estimator.RunConfig (or NPURunConfig)",
             "learn_runner": "tf.estimator.train_and_evaluate"})
