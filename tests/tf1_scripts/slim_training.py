"""TF 1.15 style: tf-slim in full (nets with batch_norm, create_train_op, optimize_loss, data).

A tiny ResNet from ``slim.nets.resnet_v1`` (batch_norm in every block) trains
on two classes of 8x8 images with ``slim.learning.create_train_op``
(gradient clipping and gradient summaries), in a plain Session.  Then
``tf.contrib.layers.optimize_loss`` with clipping and a decay function,
``slim.learning.multiply_gradients`` / ``clip_gradient_norms``, and a
TFRecord file read back through ``TFExampleDecoder`` (an Image and a Tensor
handler) and ``DatasetDataProvider``.  Prints one JSON line of values.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
import tensorflow.contrib.slim as slim
from tensorflow.contrib.slim.nets import resnet_v1

OUT = sys.argv[1]
rng = np.random.RandomState(0)
IMAGES = rng.normal(0.0, 1.0, (16, 8, 8, 3)).astype(np.float32)
LABELS = np.array([0, 1] * 8, np.int64)
IMAGES[LABELS == 1] += 1.5  # class 1 is brighter


def train_tiny_resnet(steps=25):
    images = tf.constant(IMAGES)
    labels = tf.one_hot(tf.constant(LABELS), 2)
    blocks = [resnet_v1.resnet_v1_block("block1", base_depth=4, num_units=1, stride=2)]
    with slim.arg_scope(resnet_v1.resnet_arg_scope(batch_norm_decay=0.9)):
        logits, end_points = resnet_v1.resnet_v1(images, blocks, num_classes=2,
                                                 is_training=True, global_pool=True,
                                                 include_root_block=False, scope="tiny")
    logits = tf.squeeze(logits, [1, 2])
    slim.losses.softmax_cross_entropy(logits, labels)
    total_loss = slim.losses.get_total_loss()
    train_op = slim.learning.create_train_op(
        total_loss, tf.train.MomentumOptimizer(0.05, 0.9), clip_gradient_norm=5.0,
        summarize_gradients=True)
    # the first batch-normalised conv: its input to batch norm and its moving mean
    bn_input = tf.get_default_graph().get_tensor_by_name(
        "tiny/block1/unit_1/bottleneck_v1/conv1/Conv2D:0")
    moving_mean = [v for v in tf.global_variables()
                   if v.name == "tiny/block1/unit_1/bottleneck_v1/conv1/BatchNorm/moving_mean:0"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first_loss, first_input = sess.run([train_op, bn_input])
        after_one = sess.run(moving_mean)
        losses = [float(first_loss)] + [float(sess.run(train_op)) for _ in range(steps - 1)]
        summaries = len(tf.get_collection(tf.GraphKeys.SUMMARIES))
    return {"losses": losses,
            "moving_mean_after_one": after_one.tolist(),
            "bn_input_mean": first_input.mean(axis=(0, 1, 2)).tolist(),
            "update_ops": len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)),
            "gradient_summaries": summaries,
            "variables": sorted(v.op.name for v in slim.get_model_variables())}


def optimize_loss_one_step():
    w = tf.Variable([3.0, 4.0])
    step = tf.train.get_or_create_global_step()
    train = tf.contrib.layers.optimize_loss(
        tf.reduce_sum(w * w), step, learning_rate=0.1, optimizer="SGD", clip_gradients=1.0,
        summaries=["loss", "learning_rate", "gradient_norm"],
        learning_rate_decay_fn=lambda lr, s: tf.train.exponential_decay(lr, s, 1, 0.5))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        after_one = sess.run(w).tolist()
        sess.run(train)
        return after_one, sess.run(w).tolist()


def gradient_helpers():
    w = tf.Variable([1.0, 2.0])
    pairs = [(tf.constant([3.0, 4.0]), w)]
    multiplied = slim.learning.multiply_gradients(pairs, {w: 3.0})
    clipped = slim.learning.clip_gradient_norms(pairs, 1.0)
    with tf.Session() as sess:
        return sess.run(multiplied[0][0]).tolist(), sess.run(clipped[0][0]).tolist()


def decode_records():
    path = os.path.join(OUT, "images.tfrecord")
    pictures = (np.arange(3 * 2 * 3 * 3) % 251).astype(np.uint8).reshape(3, 2, 3, 3)
    with tf.Session() as sess:
        encoded = [sess.run(tf.image.encode_png(p)) for p in pictures]
    with tf.python_io.TFRecordWriter(path) as writer:
        for label, png in enumerate(encoded):
            writer.write(tf.train.Example(features=tf.train.Features(feature={
                "image/encoded": tf.train.Feature(bytes_list=tf.train.BytesList(value=[png])),
                "image/format": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"png"])),
                "image/class/label": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=[label + 10]))})).SerializeToString())
    keys = {"image/encoded": tf.FixedLenFeature((), tf.string, default_value=""),
            "image/format": tf.FixedLenFeature((), tf.string, default_value="png"),
            "image/class/label": tf.FixedLenFeature([], tf.int64, default_value=0)}
    items = {"image": slim.tfexample_decoder.Image(shape=[2, 3, 3]),
             "label": slim.tfexample_decoder.Tensor("image/class/label")}
    dataset = slim.dataset.Dataset(
        data_sources=path, reader=tf.TFRecordReader, num_samples=3, items_to_descriptions={},
        decoder=slim.tfexample_decoder.TFExampleDecoder(keys, items))
    provider = slim.dataset_data_provider.DatasetDataProvider(dataset, shuffle=False, num_epochs=1)
    image, label = provider.get(["image", "label"])
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coordinator = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coordinator)
        read = [sess.run([image, label]) for _ in range(3)]
        coordinator.request_stop()
        coordinator.join(threads)
    return {"labels": [int(l) for _, l in read],
            "images_equal": all(np.array_equal(img, pictures[i]) for i, (img, _) in enumerate(read))}


def in_graph(fn):
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        return fn()


print("RESULT " + json.dumps({
    "resnet": in_graph(train_tiny_resnet),
    "optimize_loss": in_graph(optimize_loss_one_step),
    "gradients": in_graph(gradient_helpers),
    "records": in_graph(decode_records),
}))
