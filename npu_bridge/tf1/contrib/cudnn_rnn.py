"""``tf.contrib.cudnn_rnn``: CudnnLSTM / CudnnGRU layers on Keras' LSTM and GRU.

``CudnnLSTM(num_layers, num_units, direction=..., dropout=...)`` called on a
time-major ``[time, batch, depth]`` input returns ``(outputs, (h, c))`` with
``h`` and ``c`` of shape ``[num_layers * num_dirs, batch, num_units]``, as
in TF 1.15; ``CudnnGRU`` returns ``(outputs, (h,))``.  Keras runs the cuDNN
kernel on a GPU and the generic one elsewhere.  The parameters are Keras
variables, not cuDNN's opaque buffer, so TF 1.15 checkpoints of these layers
do not load; ``seed`` has no effect (the graph seed applies).
``CudnnCompatibleLSTMCell`` is ``LSTMCell(forget_bias=0)``.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr

CUDNN_RNN_UNIDIRECTION = "unidirectional"
CUDNN_RNN_BIDIRECTION = "bidirectional"
CUDNN_LINEAR_INPUT = "linear_input"


class _CudnnRNN:
    _layer_class = None
    _has_cell_state = False

    def __init__(self, num_layers, num_units, input_mode=CUDNN_LINEAR_INPUT,
                 direction=CUDNN_RNN_UNIDIRECTION, dropout=0.0, seed=None, dtype=tf.float32,
                 kernel_initializer=None, bias_initializer=None, name=None):
        if direction not in (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION):
            raise ValueError("direction must be %r or %r, got %r"
                             % (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION, direction))
        if input_mode != CUDNN_LINEAR_INPUT:
            raise ValueError("input_mode %r is not provided by the TF1 mode (only %r)"
                             % (input_mode, CUDNN_LINEAR_INPUT))
        self.num_layers, self.num_units, self.direction = num_layers, num_units, direction
        kwargs = {"return_sequences": True, "return_state": True, "time_major": True,
                  "dtype": dtype}
        if kernel_initializer is not None:
            kwargs["kernel_initializer"] = kernel_initializer
        if bias_initializer is not None:
            kwargs["bias_initializer"] = bias_initializer
        self._layers = []
        prefix = name or type(self).__name__.lower()
        for index in range(num_layers):
            # Keras' input dropout on layers 1.. is cuDNN's dropout between layers.
            layer = self._layer_class(num_units, dropout=dropout if index else 0.0,
                                      name="%s_layer%d" % (prefix, index), **kwargs)
            if direction == CUDNN_RNN_BIDIRECTION:
                layer = tf.keras.layers.Bidirectional(layer)
            self._layers.append(layer)

    def __call__(self, inputs, initial_state=None, training=True):
        if initial_state is not None:
            raise ValueError("initial_state is not provided by the TF1 mode's %s; "
                             "start from zeros" % type(self).__name__)
        outputs, finals = inputs, []
        for layer in self._layers:
            result = layer(outputs, training=training)
            outputs, states = result[0], result[1:]
            finals.append(states)
        return outputs, self._stack_states(finals)

    def _stack_states(self, finals):
        # Per layer Keras gives (h, c) or (h,); bidirectional (fw_h, fw_c, bw_h, bw_c) or (fw_h, bw_h).
        per_kind = 2 if self._has_cell_state else 1
        return tuple(tf.stack([t for states in finals for t in states[kind::per_kind]])
                     for kind in range(per_kind))

    @property
    def trainable_variables(self):
        return [v for layer in self._layers for v in layer.trainable_variables]


class CudnnLSTM(_CudnnRNN):
    _layer_class = tf.keras.layers.LSTM
    _has_cell_state = True


class CudnnGRU(_CudnnRNN):
    _layer_class = tf.keras.layers.GRU


def CudnnCompatibleLSTMCell(num_units, reuse=None):
    """The LSTM cell whose maths CudnnLSTM computes (no forget-gate bias offset)."""
    return tf.compat.v1.nn.rnn_cell.LSTMCell(num_units, forget_bias=0.0, reuse=reuse)


__getattr__ = not_provided_getattr("tf.contrib.cudnn_rnn")
