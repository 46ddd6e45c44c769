# A TF 1.15 script with known gaps (read by the migration check, never run).
import tensorflow as tf
import tensorflow.contrib.slim as slim
from tensorflow.contrib import summary
from tensorflow.contrib.lite import TFLiteConverter
from npu_bridge.npu_init import *
from npu_bridge.estimator.npu.npu_config import NPURunConfig, NoSuchConfig
from hccl.not_a_module.api import get_rank_size


def model_fn(features, labels, mode):
    net = slim.fully_connected(features, 4)
    net = tf.contrib.layers.layer_norm(net)
    cell = tf.contrib.rnn.NASCell(8)
    opt = tf.train.MomentumOptimizer(0.1, 0.9)
    opt = npu_tf_optimizer_that_does_not_exist(opt)
    loss = tf.losses.mean_squared_error(labels, net)
    summary.scalar("loss", loss)
    tf.contrib.summary.create_db_writer("db")
    x = tf.no_such_tf1_function(loss)
    return NPUEstimatorSpec(mode, loss=loss, train_op=opt.minimize(loss))


config = tf.ConfigProto()
run_config = NPURunConfig(session_config=npu_config_proto(config))
local_name = 3
print(local_name, TFLiteConverter, NoSuchConfig, get_rank_size, cell, x, os.environ)
