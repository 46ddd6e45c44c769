# A TF 1.15 Session script using only names the package provides.
import tensorflow as tf
from tensorflow.contrib.data import map_and_batch
from npu_bridge.npu_init import *

dataset = tf.data.Dataset.range(10).apply(map_and_batch(lambda x: x, 2))
config = tf.ConfigProto()
config = npu_config_proto(config_proto=config)
with tf.Session(config=config) as sess:
    hp = tf.contrib.training.HParams(lr=0.1)
    op = util.set_iteration_per_loop(sess, tf.no_op(), 10)
    print(tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2, hp, op, os.getcwd())
