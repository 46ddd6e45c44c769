"""TF 1.15 style: a plain Session script with tf.ConfigProto, npu_config_proto and set_iteration_per_loop.

Prints one JSON line with what the test checks: the global step after three
``sess.run(train_op)`` of 10 iterations, the trained weights, the loss, and
the NpuOptimizer options that survived ``npu_config_proto``.
"""
import json
import sys

import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

X = np.arange(24, dtype=np.float32).reshape(6, 4) / 24.0
Y = (X @ np.array([[1.0], [2.0], [-1.0], [0.5]], np.float32) + 0.25).astype(np.float32)

x = tf.constant(X)
y = tf.constant(Y)
w = tf.Variable(tf.zeros([4, 1]), name="w")
b = tf.Variable(tf.zeros([1]), name="b")
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
global_step = tf.train.get_or_create_global_step()
train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)

config = tf.ConfigProto(allow_soft_placement=True)
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["use_off_line"].b = True
custom_op.parameter_map["iterations_per_loop"].i = 10
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
config = npu_config_proto(config_proto=config)

with tf.Session(config=config) as sess:
    sess.run(tf.global_variables_initializer())
    train_op = util.set_iteration_per_loop(sess, train_op, 10)
    for _ in range(int(sys.argv[1])):
        sess.run(train_op)
    step, w_value, b_value, loss_value = sess.run([global_step, w, b, loss])

npu = [o for o in config.graph_options.rewrite_options.custom_optimizers if o.name == "NpuOptimizer"]
print("RESULT " + json.dumps({
    "variable_type": type(w).__name__,
    "global_step": int(step),
    "w": w_value.ravel().tolist(), "b": b_value.tolist(), "loss": float(loss_value),
    "iterations_per_loop": npu[0].parameter_map["iterations_per_loop"].i,
    "use_off_line": npu[0].parameter_map["use_off_line"].b,
    "allow_soft_placement": config.allow_soft_placement,
}))
