"""TF 1.15 style: contrib RNN cells and cudnn layers restored from a TF 1.15-named checkpoint.

Builds LSTMBlockCell, LSTMBlockFusedCell, MultiRNNCell(BasicLSTMCell),
LayerNormBasicLSTMCell, CudnnLSTM (2 layers) and CudnnGRU as a TF 1.15
script would, restores every variable with a plain ``tf.train.Saver()``
from the checkpoint given (written with TF 1.15's names, including the
cudnn layers' opaque buffers), and prints each model's outputs on a fixed
input as one JSON line.
"""
import json
import sys

import numpy as np
import tensorflow as tf

CHECKPOINT = sys.argv[1]
TIME, BATCH, DEPTH, UNITS = 5, 2, 3, 4
INPUTS = np.linspace(-1.0, 1.0, TIME * BATCH * DEPTH).reshape(TIME, BATCH, DEPTH).astype(np.float32)

x = tf.constant(INPUTS)  # time-major
outputs = {}
with tf.variable_scope("block"):
    outputs["block"], _ = tf.nn.dynamic_rnn(tf.contrib.rnn.LSTMBlockCell(UNITS), x,
                                            dtype=tf.float32, time_major=True)
with tf.variable_scope("fused"):
    outputs["fused"], _ = tf.contrib.rnn.LSTMBlockFusedCell(UNITS)(x, dtype=tf.float32)
with tf.variable_scope("multi"):
    cells = [tf.contrib.rnn.BasicLSTMCell(UNITS) for _ in range(2)]
    outputs["multi"], _ = tf.nn.dynamic_rnn(tf.contrib.rnn.MultiRNNCell(cells), x,
                                            dtype=tf.float32, time_major=True)
with tf.variable_scope("ln"):
    outputs["layer_norm"], _ = tf.nn.dynamic_rnn(tf.contrib.rnn.LayerNormBasicLSTMCell(UNITS), x,
                                                 dtype=tf.float32, time_major=True)
outputs["cudnn_lstm"], (lstm_h, lstm_c) = tf.contrib.cudnn_rnn.CudnnLSTM(2, UNITS)(x)
outputs["cudnn_gru"], (gru_h,) = tf.contrib.cudnn_rnn.CudnnGRU(1, UNITS)(x)

with tf.Session() as sess:
    tf.train.Saver().restore(sess, CHECKPOINT)
    values = sess.run(outputs)
    states = sess.run([lstm_h, lstm_c, gru_h])
print("RESULT " + json.dumps({
    "outputs": {name: value.tolist() for name, value in values.items()},
    "cudnn_lstm_h": states[0].tolist(), "cudnn_lstm_c": states[1].tolist(),
    "cudnn_gru_h": states[2].tolist(),
    "variables": sorted(v.op.name for v in tf.global_variables())}))
