"""A script's own model module: it must see the same TF1 ``tensorflow`` as the script."""
import tensorflow as tf


def tf_module():
    return tf


def dense(x, units):
    return tf.layers.dense(x, units, name="dense_from_model_lib")
