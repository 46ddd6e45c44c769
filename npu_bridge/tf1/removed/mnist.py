"""TF 1.15's ``tensorflow.examples.tutorials.mnist.input_data``: MNIST from local idx files.

``input_data.read_data_sets(train_dir, one_hot=..., reshape=..., validation_size=...)``
returns ``Datasets(train, validation, test)`` of ``DataSet`` objects with TF
1.15's API (``next_batch``, ``images``, ``labels``, ``num_examples``,
``epochs_completed``) and values: images scaled to [0, 1] as float32 (or kept
as uint8), flattened to 784 columns unless ``reshape=False``, labels as
uint8 class ids or float64 one-hot rows, the first ``validation_size``
training images held out, batches shuffled by numpy's global generator
seeded as TF 1.15 seeded it.

It reads the four idx files (``train-images-idx3-ubyte`` ...) from
``train_dir``, gzipped or not, and never reaches the network: TF 1.15
downloaded missing files, here ``MnistFilesNotFound`` names them and says
where to put them.
"""

import collections
import gzip
import os

import numpy as np
import tensorflow as tf

IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049
NUM_CLASSES = 10
FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
         "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
# Where TF 1.15 downloaded them from (named in the error, never fetched here).
TF115_SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


class MnistFilesNotFound(FileNotFoundError):
    """Some of the four MNIST files are not in ``train_dir``; ``missing`` lists them."""

    def __init__(self, train_dir, missing, source_url):
        self.missing = list(missing)
        super().__init__(
            "read_data_sets: MNIST file(s) %s not found in %s. npu_bridge's TF1 mode never "
            "downloads: put the idx files there, gzipped (name.gz) or not (TF 1.15 fetched them "
            "from %s)" % (", ".join(name + "[.gz]" for name in self.missing),
                          os.path.abspath(train_dir), source_url or TF115_SOURCE_URL))


def dense_to_one_hot(labels_dense, num_classes):
    """Class ids [n] to one-hot rows [n, num_classes] (float64, as TF 1.15)."""
    one_hot = np.zeros((labels_dense.shape[0], num_classes))
    one_hot[np.arange(labels_dense.shape[0]), labels_dense.ravel()] = 1
    return one_hot


class DataSet:
    """One split: its images and labels, and batches that walk through them epoch by epoch."""

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=tf.float32,
                 reshape=True, seed=None):
        graph_seed, op_seed = tf.compat.v1.get_seed(seed)
        np.random.seed(graph_seed if seed is None else op_seed)
        dtype = _image_dtype(dtype)
        self.one_hot = one_hot
        if fake_data:
            self._num_examples = 10000
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError("DataSet: images and labels must have as many rows; got "
                                 "images.shape=%s, labels.shape=%s" % (images.shape, labels.shape))
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError("DataSet: reshape=True needs one channel; got images.shape=%s"
                                     % (images.shape,))
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == tf.float32:
                images = images.astype(np.float32) * (1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """The next ``batch_size`` examples; an epoch's end is filled from the next epoch."""
        if fake_data:
            image = [1] * 784
            label = [1] + [0] * 9 if self.one_hot else 0
            return [image] * batch_size, [label] * batch_size
        start = self._index_in_epoch
        if shuffle and start == 0 and self._epochs_completed == 0:
            self._shuffle()
        end = start + batch_size
        if end <= self._num_examples:
            self._index_in_epoch = end
            return self._images[start:end], self._labels[start:end]
        self._epochs_completed += 1
        rest_images, rest_labels = self._images[start:], self._labels[start:]
        if shuffle:
            self._shuffle()
        self._index_in_epoch = end - self._num_examples
        head = self._index_in_epoch
        return (np.concatenate((rest_images, self._images[:head]), axis=0),
                np.concatenate((rest_labels, self._labels[:head]), axis=0))

    def _shuffle(self):
        order = np.arange(self._num_examples)
        np.random.shuffle(order)
        self._images = self._images[order]
        self._labels = self._labels[order]


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=tf.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    """MNIST's train/validation/test ``DataSet``s from the idx files in ``train_dir``."""
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    if fake_data:
        fakes = [DataSet([], [], fake_data=True, one_hot=one_hot, **options) for _ in range(3)]
        return Datasets(*fakes)
    paths = {name: _find(train_dir, name) for name in FILES}
    missing = [name for name in FILES if paths[name] is None]
    if missing:
        raise MnistFilesNotFound(train_dir, missing, source_url)
    train_images = _read_images(paths[FILES[0]])
    train_labels = _read_labels(paths[FILES[1]], one_hot)
    test_images = _read_images(paths[FILES[2]])
    test_labels = _read_labels(paths[FILES[3]], one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("read_data_sets: validation_size must be between 0 and %d (the training "
                         "images); got %r" % (len(train_images), validation_size))
    validation = DataSet(train_images[:validation_size], train_labels[:validation_size], **options)
    train = DataSet(train_images[validation_size:], train_labels[validation_size:], **options)
    test = DataSet(test_images, test_labels, **options)
    return Datasets(train=train, validation=validation, test=test)


def _image_dtype(dtype):
    dtype = tf.as_dtype(dtype).base_dtype
    if dtype not in (tf.uint8, tf.float32):
        raise TypeError("DataSet: dtype must be uint8 or float32 (as in TF 1.15); got %r" % dtype)
    return dtype


def _find(train_dir, name):
    for candidate in (name + ".gz", name):
        path = os.path.join(train_dir, candidate)
        if os.path.isfile(path):
            return path
    return None


def _read_idx(path, magic, dims):
    """The uint8 array of an idx file (gzipped or not) with ``dims`` header sizes."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rb") if gzipped else open(path, "rb")) as f:
        data = f.read()
    header = np.frombuffer(data, dtype=">u4", count=1 + dims)
    if header[0] != magic:
        raise ValueError("read_data_sets: invalid magic number %d in MNIST file %s (expected %d)"
                         % (header[0], path, magic))
    shape = tuple(int(n) for n in header[1:])
    return np.frombuffer(data, dtype=np.uint8, offset=4 * (1 + dims)).reshape(shape)


def _read_images(path):
    return _read_idx(path, IMAGES_MAGIC, 3)[..., np.newaxis].copy()


def _read_labels(path, one_hot):
    labels = _read_idx(path, LABELS_MAGIC, 1).copy()
    return dense_to_one_hot(labels, NUM_CLASSES) if one_hot else labels
