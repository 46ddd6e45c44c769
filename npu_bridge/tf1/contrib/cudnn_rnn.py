"""``tf.contrib.cudnn_rnn``: CudnnLSTM / CudnnGRU as TF 1.15's canonical cells, checkpoint-compatible.

``CudnnLSTM(num_layers, num_units, direction=..., dropout=...)`` called on a
time-major ``[time, batch, depth]`` input (``time_major=False``: batch-major)
returns ``(outputs, (h, c))`` with ``h``/``c`` of shape ``[num_layers *
num_dirs, batch, num_units]``, as in TF 1.15; ``CudnnGRU`` returns
``(outputs, (h,))``.  ``initial_state`` and ``sequence_lengths`` work as
there; ``dropout`` applies between layers when ``training``.

TF 1.15 kept cuDNN's parameters in one opaque buffer
(``cudnn_lstm/opaque_kernel``) and also saved them in checkpoints in a
canonical form, under the names of an equivalent stack of
``CudnnCompatibleLSTMCell`` / ``CudnnCompatibleGRUCell``:
``cudnn_lstm/rnn/multi_rnn_cell/cell_<k>/cudnn_compatible_lstm_cell/kernel``
and ``.../bias`` (bidirectional:
``.../stack_bidirectional_rnn/cell_<k>/bidirectional_rnn/fw|bw/...``).
Here the layer *is* that stack: its variables have exactly those names and
layouts, so a TF 1.15 checkpoint of these layers restores (the opaque buffer
in it is simply not read) and the numbers are the same.  The layers run as
LSTM/GRU cells in a loop, not as the cuDNN kernel.

The compatible cells: ``CudnnCompatibleLSTMCell`` is an LSTM cell without
forget-gate bias offset (``kernel`` ``[depth + units, 4 * units]``, gates i,
j, f, o; ``bias`` the sum of cuDNN's two biases); ``CudnnCompatibleGRUCell``
computes cuDNN's GRU, ``h~ = tanh(x W_h + b_in + r * (h R_h + b_hh))``, with
``gates/kernel|bias`` (reset, update) and
``candidate/input_projection|hidden_projection/kernel|bias``.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr

CUDNN_RNN_UNIDIRECTION = "unidirectional"
CUDNN_RNN_BIDIRECTION = "bidirectional"
CUDNN_LINEAR_INPUT = "linear_input"
CUDNN_INPUT_LINEAR_MODE = CUDNN_LINEAR_INPUT
CUDNN_LSTM = "lstm"
CUDNN_GRU = "gru"

_v1 = tf.compat.v1


def CudnnCompatibleLSTMCell(num_units, reuse=None):
    """The LSTM cell whose variables and maths CudnnLSTM's canonical form has."""
    return _v1.nn.rnn_cell.LSTMCell(num_units, forget_bias=0.0, reuse=reuse,
                                     name="cudnn_compatible_lstm_cell")


class CudnnCompatibleGRUCell(_v1.nn.rnn_cell.GRUCell):
    """A GRU cell with cuDNN's candidate (reset applied after the recurrent projection)."""

    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super().__init__(num_units, reuse=reuse, kernel_initializer=kernel_initializer,
                         name="cudnn_compatible_gru_cell")

    def build(self, inputs_shape):
        self.built = True  # variables are made in call, under TF 1.15's scopes

    def _dense(self, inputs, units, bias_initializer):
        kernel = _v1.get_variable("kernel", [inputs.get_shape()[-1], units], dtype=inputs.dtype,
                                  initializer=self._kernel_initializer)
        bias = _v1.get_variable("bias", [units], dtype=inputs.dtype,
                                initializer=bias_initializer or _v1.zeros_initializer())
        return tf.nn.bias_add(tf.matmul(inputs, kernel), bias)

    def call(self, inputs, state):
        with _v1.variable_scope("gates"):
            ones = self._bias_initializer or _v1.constant_initializer(1.0, dtype=inputs.dtype)
            gates = tf.sigmoid(self._dense(tf.concat([inputs, state], 1), 2 * self._num_units,
                                           ones))
            reset, update = tf.split(gates, 2, axis=1)
        with _v1.variable_scope("candidate"):
            with _v1.variable_scope("input_projection"):
                from_input = self._dense(inputs, self._num_units, self._bias_initializer)
            with _v1.variable_scope("hidden_projection"):
                from_state = reset * self._dense(state, self._num_units, self._bias_initializer)
            candidate = tf.tanh(from_input + from_state)
        new_h = update * state + (1 - update) * candidate
        return new_h, new_h


class _CudnnRNN(_v1.layers.Layer):
    """A stack of canonical cells under TF 1.15's checkpoint names (see module docstring)."""

    _state_count = 1

    def __init__(self, num_layers, num_units, input_mode=CUDNN_LINEAR_INPUT,
                 direction=CUDNN_RNN_UNIDIRECTION, dropout=0.0, seed=None, dtype=tf.float32,
                 kernel_initializer=None, bias_initializer=None, name=None):
        if direction not in (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION):
            raise ValueError("direction must be %r or %r, got %r"
                             % (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION, direction))
        if input_mode != CUDNN_LINEAR_INPUT:
            raise ValueError("input_mode %r is not provided by the TF1 mode (only %r)"
                             % (input_mode, CUDNN_LINEAR_INPUT))
        super().__init__(dtype=dtype, name=name)
        self._num_layers, self._num_units, self._direction = num_layers, num_units, direction
        self._dropout, self._seed = dropout, seed
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    num_layers = property(lambda self: self._num_layers)
    num_units = property(lambda self: self._num_units)
    direction = property(lambda self: self._direction)
    num_dirs = property(lambda self: 2 if self._direction == CUDNN_RNN_BIDIRECTION else 1)

    def _cell(self):
        raise NotImplementedError

    def _zero_state(self, batch_size, dtype):
        return tuple(tf.zeros(tf.stack([self._num_layers * self.num_dirs, batch_size,
                                        self._num_units]), dtype)
                     for _ in range(self._state_count))

    def _cell_state(self, states, index):
        """The initial state of cell ``index`` from the stacked ``states`` tuple."""
        if self._state_count == 1:
            return states[0][index]
        return _v1.nn.rnn_cell.LSTMStateTuple(states[1][index], states[0][index])  # (c, h)

    def _final_parts(self, state):
        """(h,) or (h, c) of one cell's final state."""
        if self._state_count == 1:
            return (state,)
        return (state.h, state.c)

    def build(self, input_shape):
        self.built = True  # the cells make their variables on the first call

    def call(self, inputs, initial_state=None, sequence_lengths=None, time_major=True,
             training=True):
        if initial_state is not None and not isinstance(initial_state, tuple):
            raise TypeError("Invalid initial_state type: %s, expecting tuple." % (initial_state,))
        inputs = tf.convert_to_tensor(inputs, dtype=self.dtype)
        if not time_major:
            inputs = tf.transpose(inputs, [1, 0, 2])
        states = initial_state or self._zero_state(tf.shape(inputs)[1], inputs.dtype)
        finals = []
        layer_input = inputs
        initializer = self._kernel_initializer or _v1.glorot_uniform_initializer(seed=self._seed)
        with _v1.variable_scope(_v1.get_variable_scope(), initializer=initializer):
            for index in range(self._num_layers):
                if index and training and self._dropout > 0:
                    layer_input = _v1.nn.dropout(layer_input, rate=self._dropout, seed=self._seed)
                layer_input = self._run_layer(index, layer_input, states, sequence_lengths,
                                              finals)
        outputs = layer_input if time_major else tf.transpose(layer_input, [1, 0, 2])
        return outputs, tuple(tf.stack([parts[kind] for parts in finals])
                              for kind in range(self._state_count))

    def _run_layer(self, index, layer_input, states, sequence_lengths, finals):
        if self._direction == CUDNN_RNN_UNIDIRECTION:
            with _v1.variable_scope("rnn/multi_rnn_cell/cell_%d" % index) as scope:
                outputs, state = _v1.nn.dynamic_rnn(
                    self._cell(), layer_input, initial_state=self._cell_state(states, index),
                    sequence_length=sequence_lengths, time_major=True, scope=scope)
            finals.append(self._final_parts(state))
            return outputs
        scope_name = "stack_bidirectional_rnn/cell_%d/bidirectional_rnn" % index
        with _v1.variable_scope(scope_name) as scope:
            (out_fw, out_bw), (state_fw, state_bw) = _v1.nn.bidirectional_dynamic_rnn(
                self._cell(), self._cell(), layer_input,
                initial_state_fw=self._cell_state(states, 2 * index),
                initial_state_bw=self._cell_state(states, 2 * index + 1),
                sequence_length=sequence_lengths, time_major=True, scope=scope)
        finals.extend([self._final_parts(state_fw), self._final_parts(state_bw)])
        return tf.concat([out_fw, out_bw], 2)


class CudnnLSTM(_CudnnRNN):
    """TF 1.15's CudnnLSTM layer, as CudnnCompatibleLSTMCells (returns (outputs, (h, c)))."""

    _state_count = 2

    def _cell(self):
        return CudnnCompatibleLSTMCell(self._num_units)


class CudnnGRU(_CudnnRNN):
    """TF 1.15's CudnnGRU layer, as CudnnCompatibleGRUCells (returns (outputs, (h,)))."""

    def _cell(self):
        return CudnnCompatibleGRUCell(self._num_units,
                                      kernel_initializer=self._kernel_initializer)


__getattr__ = not_provided_getattr("tf.contrib.cudnn_rnn")
