"""TF 1.15 style: the MNIST tutorial's input_data, tensorflow_core, numpy aliases, importlib, npu_init's names.

``removed_modules.py DATA_DIR OUT_DIR``: reads MNIST idx files from DATA_DIR
with ``input_data.read_data_sets`` and trains the tutorial's softmax
regression on them in a ``tf.Session`` whose config comes from
``config_pb2`` as given by the star import; saves the arrays and batches it
read into OUT_DIR (``.npy``) and prints one JSON line (FACTS) with the rest.
"""
import importlib
import json
import os
import sys
import warnings

import numpy as np
import tensorflow as tf
import tensorflow_core
import tensorflow_core.contrib.slim as core_slim
from tensorflow.examples.tutorials.mnist import input_data
from tensorflow_core.core.protobuf.rewriter_config_pb2 import RewriterConfig as CoreRewriterConfig
from tensorflow_core.python.tools import freeze_graph
from npu_bridge.npu_init import *

data_dir, out_dir = sys.argv[1], sys.argv[2]
facts = {
    "tensorflow_core_is_tf": tensorflow_core is tf,
    "core_rewriter_config": CoreRewriterConfig is RewriterConfig,
    "core_freeze_graph": freeze_graph.__name__ == "tensorflow.python.tools.freeze_graph",
    "core_slim_is_contrib_slim": core_slim is tf.contrib.slim,
    "import_module_tf": importlib.import_module("tensorflow") is tf,
    "dunder_import_tf": __import__("tensorflow") is tf,
    "import_module_core": importlib.import_module("tensorflow_core") is tf,
    "import_module_keras_adam": (importlib.import_module("tensorflow.keras.optimizers").Adam
                                 is tf.keras.optimizers.Adam),
    "star_import": {name: name in globals()
                    for name in ("config_pb2", "rewriter_config_pb2", "session", "atexit")},
}

# The numpy of TF 1.15's time.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    facts["numpy"] = [np.float(2.5), np.int(3.7), np.bool(0), np.zeros(2, dtype=np.float).dtype.name,
                      np.object.__name__, np.str(5), np.long(2.9), np.unicode(7),
                      np.asscalar(np.array([4.5])), np.array([1, 0], dtype=np.bool).dtype.name]
    np.float(1.0)
    np.int(1)
facts["numpy_warnings"] = sorted(str(w.message).split(" ")[0] for w in caught
                                 if type(w.message).__name__ == "TF1ModeWarning")

# The MNIST tutorial's reader: arrays, batches, the error for missing files.
mnist = input_data.read_data_sets(data_dir, one_hot=True, validation_size=5, seed=7)
for split in ("train", "validation", "test"):
    np.save(os.path.join(out_dir, split + "_images.npy"), getattr(mnist, split).images)
    np.save(os.path.join(out_dir, split + "_labels.npy"), getattr(mnist, split).labels)
batches = [mnist.train.next_batch(6) for _ in range(4)]
np.save(os.path.join(out_dir, "batch_images.npy"), np.stack([b[0] for b in batches]))
np.save(os.path.join(out_dir, "batch_labels.npy"), np.stack([b[1] for b in batches]))
facts["epochs_completed"] = mnist.train.epochs_completed
facts["num_examples"] = [mnist.train.num_examples, mnist.validation.num_examples,
                         mnist.test.num_examples]
raw = input_data.read_data_sets(data_dir, reshape=False, dtype=tf.uint8, validation_size=0)
np.save(os.path.join(out_dir, "raw_train_images.npy"), raw.train.images)
np.save(os.path.join(out_dir, "raw_train_labels.npy"), raw.train.labels)
try:
    input_data.read_data_sets(os.path.join(data_dir, "absent"), one_hot=True)
except Exception as err:  # noqa: BLE001  (the test checks type and message)
    facts["missing_error"] = [type(err).__name__, str(err)]

# The tutorial's softmax regression, in a session configured through config_pb2.
x = tf.placeholder(tf.float32, [None, 784])
y_ = tf.placeholder(tf.float32, [None, 10])
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
y = tf.matmul(x, W) + b
cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
config = npu_config_proto(config_pb2.ConfigProto(allow_soft_placement=True))
losses = []
with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(30):
        batch_xs, batch_ys = mnist.train.next_batch(10)
        _, value = sess.run([train_step, cross_entropy], feed_dict={x: batch_xs, y_: batch_ys})
        losses.append(float(value))
    facts["test_loss"] = float(sess.run(cross_entropy, feed_dict={x: mnist.test.images,
                                                                   y_: mnist.test.labels}))
facts["losses"] = losses
print("FACTS " + json.dumps(facts))
