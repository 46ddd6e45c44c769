"""contrib's ``LayerNormBasicLSTMCell``: an LSTM cell with layer normalisation (small code of ours).

TF 1.15's maths: ``[i, j, f, o] = [x, h] @ kernel`` (plus ``bias`` only
without layer norm); with ``layer_norm`` each of the four is normalised by
tf-slim's ``layer_norm`` with its own gain and shift (``input``,
``transform``, ``forget``, ``output``, initialised to ``norm_gain`` and
``norm_shift``); ``g = activation(j)`` (dropout on ``g`` when
``dropout_keep_prob < 1``); ``c' = c * sigmoid(f + forget_bias) + sigmoid(i)
* g``, normalised again (``state``) with layer norm; ``h' = activation(c') *
sigmoid(o)``.  Variables are named as TF 1.15 named them
(``layer_norm_basic_lstm_cell/kernel``, ``.../input/gamma`` ...), so its
checkpoints restore.
"""

import importlib

import tensorflow as tf

_slim_layers = importlib.import_module("tf_slim.layers")


class LayerNormBasicLSTMCell(tf.compat.v1.nn.rnn_cell.RNNCell):
    """LSTM cell with layer normalisation and recurrent dropout (TF 1.15 contrib)."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=tf.tanh,
                 layer_norm=True, norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0,
                 dropout_prob_seed=None, reuse=None):
        super().__init__(_reuse=reuse)
        del input_size  # deprecated in TF 1.15 too
        self._num_units = num_units
        self._activation = activation
        self._forget_bias = forget_bias
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift

    @property
    def state_size(self):
        return tf.compat.v1.nn.rnn_cell.LSTMStateTuple(self._num_units, self._num_units)

    @property
    def output_size(self):
        return self._num_units

    def _norm(self, inp, scope, dtype):
        shape = inp.get_shape()[-1:]
        with tf.compat.v1.variable_scope(scope):
            tf.compat.v1.get_variable(
                "gamma", shape=shape, dtype=dtype,
                initializer=tf.compat.v1.constant_initializer(self._norm_gain))
            tf.compat.v1.get_variable(
                "beta", shape=shape, dtype=dtype,
                initializer=tf.compat.v1.constant_initializer(self._norm_shift))
        return _slim_layers.layer_norm(inp, reuse=True, scope=scope)

    def _linear(self, args):
        out_size = 4 * self._num_units
        kernel = tf.compat.v1.get_variable("kernel", [args.get_shape()[-1], out_size],
                                           dtype=args.dtype)
        out = tf.matmul(args, kernel)
        if not self._layer_norm:
            out = tf.nn.bias_add(out, tf.compat.v1.get_variable("bias", [out_size],
                                                                dtype=args.dtype))
        return out

    def call(self, inputs, state):
        c, h = state
        args = tf.concat([inputs, h], 1)
        i, j, f, o = tf.split(self._linear(args), num_or_size_splits=4, axis=1)
        if self._layer_norm:
            i = self._norm(i, "input", args.dtype)
            j = self._norm(j, "transform", args.dtype)
            f = self._norm(f, "forget", args.dtype)
            o = self._norm(o, "output", args.dtype)
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = tf.compat.v1.nn.dropout(g, keep_prob=self._keep_prob, seed=self._seed)
        new_c = c * tf.sigmoid(f + self._forget_bias) + tf.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state", args.dtype)
        new_h = self._activation(new_c) * tf.sigmoid(o)
        return new_h, tf.compat.v1.nn.rnn_cell.LSTMStateTuple(new_c, new_h)
