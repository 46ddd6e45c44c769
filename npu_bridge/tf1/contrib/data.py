"""``tf.contrib.data``: the transformations TF 2.15 keeps in ``tf.data.experimental``.

``map_and_batch``, ``parallel_interleave``, ``shuffle_and_repeat``,
``unbatch``, ``ignore_errors``, ``group_by_window``,
``bucket_by_sequence_length``, ``sample_from_datasets``, ``scan``,
``make_csv_dataset`` ... are the ``tf.compat.v1.data.experimental`` ones
(transformations for ``dataset.apply``).  ``batch_and_drop_remainder``,
``padded_batch_and_drop_remainder`` and ``sliding_window_batch`` (removed
from TensorFlow) are small equivalents here.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr


def batch_and_drop_remainder(batch_size):
    """``dataset.apply(batch_and_drop_remainder(n))`` = ``dataset.batch(n, drop_remainder=True)``."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """``dataset.padded_batch(..., drop_remainder=True)`` as a transformation."""
    return lambda dataset: dataset.padded_batch(
        batch_size, padded_shapes, padding_values=padding_values, drop_remainder=True)


def sliding_window_batch(window_size, stride=1):
    """Windows of ``window_size`` consecutive elements, every ``stride`` elements, batched."""
    def transform(dataset):
        windows = dataset.window(window_size, shift=stride, drop_remainder=True)
        return windows.flat_map(
            lambda *w: tf.data.Dataset.zip(tuple(x.batch(window_size) for x in w))
            if len(w) > 1 else w[0].batch(window_size))
    return transform


Dataset = tf.compat.v1.data.Dataset
TFRecordDataset = tf.compat.v1.data.TFRecordDataset
TextLineDataset = tf.compat.v1.data.TextLineDataset
Iterator = tf.compat.v1.data.Iterator

__getattr__ = not_provided_getattr("tf.contrib.data", first_of(tf.compat.v1.data.experimental))
