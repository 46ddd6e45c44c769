# npu-bridge-check: stops at tensorflow.contrib.slim.batch_norm
"""TF 1.15 style: slim layers normalised by slim.batch_norm, as many zoo models build them.

The name exists, so only reading what its code reaches tells whether the
first layer can be built.
"""
import tensorflow as tf
import tensorflow.contrib.slim as slim

images = tf.placeholder(tf.float32, [None, 8, 8, 3])
with slim.arg_scope([slim.conv2d], normalizer_fn=slim.batch_norm,
                    normalizer_params={"is_training": True}):
    net = slim.conv2d(images, 4, [3, 3], scope="conv1")
print("RAN", net.shape.as_list())
