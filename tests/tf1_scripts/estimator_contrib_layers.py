"""TF 1.15 style: NPUEstimator with slim / tf.contrib.layers layers and tf.contrib.data input.

Two separable blobs; the model uses slim.arg_scope, slim.fully_connected,
tf.contrib.layers.layer_norm, xavier_initializer and l2_regularizer; the input
uses tf.contrib.data.shuffle_and_repeat and tf.contrib.data.map_and_batch.
Prints one JSON line with the eval metrics, the variable names and the first
batch map_and_batch produced.
"""
import json
import sys

import numpy as np
import tensorflow as tf
import tensorflow.contrib.slim as slim
from npu_bridge.npu_init import *

rng = np.random.RandomState(0)
POINTS = np.concatenate([rng.normal(-1.0, 0.4, (200, 2)), rng.normal(1.0, 0.4, (200, 2))]).astype(np.float32)
LABELS = np.array([0] * 200 + [1] * 200, np.int32)


def parse(index):
    return {"x": tf.gather(POINTS, index) * 2.0}, tf.gather(LABELS, index)


def input_fn(train):
    def fn():
        ds = tf.data.Dataset.range(len(POINTS))
        if train:
            ds = ds.apply(tf.contrib.data.shuffle_and_repeat(400, seed=1))
        return ds.apply(tf.contrib.data.map_and_batch(parse, 32, drop_remainder=True))
    return fn


def model_fn(features, labels, mode):
    with slim.arg_scope([slim.fully_connected], activation_fn=tf.nn.relu,
                        weights_initializer=tf.contrib.layers.xavier_initializer(seed=1),
                        weights_regularizer=tf.contrib.layers.l2_regularizer(1e-4)):
        net = slim.fully_connected(features["x"], 16, scope="fc1")
        net = tf.contrib.layers.layer_norm(net)
        logits = slim.fully_connected(net, 2, activation_fn=None, scope="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits) + tf.losses.get_regularization_loss()
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return NPUEstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": accuracy})
    train_op = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=tf.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def first_batch():
    features, labels = tf.data.make_one_shot_iterator(input_fn(False)()).get_next()
    with tf.Session() as sess:
        x, y = sess.run([features["x"], labels])
    return x[:3].tolist(), y.tolist()


def main():
    config = NPURunConfig(model_dir=sys.argv[1], iterations_per_loop=10, tf_random_seed=1)
    estimator = NPUEstimator(model_fn=model_fn, config=config)
    estimator.train(input_fn(True), max_steps=100)
    metrics = estimator.evaluate(input_fn(False), steps=12)
    batch_x, batch_y = first_batch()
    print("RESULT " + json.dumps({
        "accuracy": float(metrics["accuracy"]), "global_step": int(metrics["global_step"]),
        "variables": estimator.get_variable_names(),
        "first_x": batch_x, "first_y": batch_y}))


if __name__ == "__main__":
    main()
