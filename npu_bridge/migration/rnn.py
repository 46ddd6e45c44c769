"""Ascend's fused recurrent layers (``npu_dynamic_rnn``) and ``npu_rnn``, on stock TensorFlow.

``DynamicRNN`` (LSTM) and ``DynamicGRUV2`` are layers over a time-major input
``x`` of shape ``[T, batch, input_size]`` that return every step's output
and gate values, as the fused kernels do:

* ``DynamicRNN(...)(x)`` -> ``(y, output_h, output_c, i, j, f, o, tanhc)``,
  each ``[T, batch, hidden]``.  Weights ``dynamicrnn/w``
  ``[input_size + hidden, 4 * hidden]`` (rows: x then h; columns: gates
  i, j, f, o) and ``dynamicrnn/b`` ``[4 * hidden]``; ``f`` gets ``forget_bias``.
  With the same kernel and bias this is TensorFlow's ``LSTMCell``.
* ``DynamicGRUV2(...)(x)`` -> ``(y, output_h, update, reset, new, hidden_new)``,
  each ``[T, batch, hidden]``.  Weights ``weight_input`` ``[input_size, 3H]``,
  ``weight_hidden`` ``[H, 3H]``, biases ``[3H]``, gates in ``gate_order``
  ("zrh" or "rzh").  ``h' = z * h + (1 - z) * n`` with
  ``n = tanh(x W_n + b_n + r * (h U_n + c_n))`` (``reset_after=True``;
  ``hidden_new`` is ``h U_n + c_n``), which is Keras' ``GRU(reset_after=True)``.

With ``seq_length`` (int ``[batch]``), steps at or past a sequence's length
output zeros and carry the state unchanged.  ``DynamicAUGRU`` is the GRU with DIN's attentional update gate (see its doc).
``DynamicRNN(direction="BIDIRECTIONAL")`` stacks
``[forward, backward]`` weights, biases and initial states, and returns every
output as ``[2, T, batch, hidden]`` (the backward direction runs over the
reversed sequences; its outputs are put back in time order).  Options the
kernels document but whose exact placement is not public (dropout via
``keep_prob``, projection, peepholes, bidirectional GRU) raise an error naming the option instead of computing something else.
"""

import math

import tensorflow as tf

DYNAMIC_RNN_UNIDIRECTION = "UNIDIRECTIONAL"
DYNAMIC_RNN_BIDIRECTION = "BIDIRECTIONAL"


def _unsupported_options(layer, **given):
    for option, (value, default) in given.items():
        if value != default:
            raise NotImplementedError(
                "%s %s=%r is not computed here (only %r): its exact placement in Ascend's "
                "kernel is not documented publicly" % (layer, option, value, default))


class _TimeMajorRecurrence(tf.compat.v1.layers.Layer):
    """Shared checks and the scan over time."""

    def __init__(self, hidden_size, dtype, direction, cell_depth, keep_prob, cell_clip,
                 num_proj, time_major, activation, is_training, name, directions=(
                     DYNAMIC_RNN_UNIDIRECTION,)):
        super().__init__(name=name, dtype=dtype)
        if isinstance(hidden_size, bool) or not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("%s hidden_size must be a positive int; got %r"
                             % (type(self).__name__, hidden_size))
        if direction not in (DYNAMIC_RNN_UNIDIRECTION, DYNAMIC_RNN_BIDIRECTION):
            raise ValueError("Invalid direction: %r, expecting %s or %s"
                             % (direction, DYNAMIC_RNN_UNIDIRECTION, DYNAMIC_RNN_BIDIRECTION))
        if direction not in directions:
            _unsupported_options(type(self).__name__,
                                 direction=(direction, DYNAMIC_RNN_UNIDIRECTION))
        _unsupported_options(type(self).__name__,
                             cell_depth=(cell_depth, 1), num_proj=(num_proj, 0),
                             time_major=(time_major, True), activation=(activation, "tanh"))
        if keep_prob != 1.0 and is_training:
            _unsupported_options(type(self).__name__, keep_prob=(keep_prob, 1.0))
        self._hidden_size = hidden_size
        self._cell_clip = cell_clip
        self.direction, self.cell_depth, self.keep_prob = direction, cell_depth, keep_prob
        self.cell_clip, self.num_proj, self.time_major = cell_clip, num_proj, time_major
        self.activation, self.is_training = activation, is_training

    def _input_size(self, input_shape):
        input_shape = tf.TensorShape(input_shape)
        if input_shape.rank != 3 or input_shape[2] is None:
            raise ValueError("%s expects x of shape [T, batch, input_size] with input_size "
                             "known; got %s" % (type(self).__name__, input_shape))
        return int(input_shape[2])

    def _initial(self, state, x):
        batch = tf.shape(x)[1]
        if state is None:
            return tf.zeros(tf.stack([batch, self._hidden_size]), x.dtype)
        state = tf.convert_to_tensor(state, dtype=x.dtype)
        return state[-1] if state.shape.rank == 3 else state

    def _scan(self, step, x, seq_length, initial_state, n_outputs):
        """Runs ``step(x_t, state) -> (new_state, outputs)`` over time, masking with seq_length."""
        first = tf.nest.flatten(x)[0]
        time = tf.shape(first)[0]
        if seq_length is None:
            alive = tf.ones(tf.stack([time, tf.shape(first)[1]]), tf.bool)
        else:
            alive = tf.range(time)[:, None] < tf.cast(seq_length, tf.int32)[None, :]

        def scan_step(carry, inputs):
            state = carry[0]
            x_t, alive_t = inputs
            new_state, outputs = step(x_t, state)
            keep = alive_t[:, None]
            new_state = tuple(tf.where(keep, n, o) for n, o in zip(new_state, state))
            outputs = tuple(tf.where(keep, out, tf.zeros_like(out)) for out in outputs)
            return (new_state, outputs)

        zeros = tuple(tf.zeros_like(initial_state[0]) for _ in range(n_outputs))
        _, outputs = tf.scan(scan_step, (x, alive), initializer=(initial_state, zeros))
        return outputs


class DynamicRNN(_TimeMajorRecurrence):
    """Fused time-major LSTM (see the module doc for outputs and weights)."""

    def __init__(self, hidden_size, dtype, cell_type="LSTM", direction=DYNAMIC_RNN_UNIDIRECTION,
                 cell_depth=1, use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0,
                 time_major=True, activation="tanh", forget_bias=0.0, is_training=True):
        if cell_type != "LSTM":
            raise ValueError("DynamicRNN cell_type must be 'LSTM'; got %r" % (cell_type,))
        _unsupported_options("DynamicRNN", use_peephole=(use_peephole, False))
        super().__init__(hidden_size, dtype, direction, cell_depth, keep_prob, cell_clip,
                         num_proj, time_major, activation, is_training, name="dynamic_rnn",
                         directions=(DYNAMIC_RNN_UNIDIRECTION, DYNAMIC_RNN_BIDIRECTION))
        self._bidirectional = direction == DYNAMIC_RNN_BIDIRECTION
        self.cell_type, self.use_peephole, self.forget_bias = cell_type, use_peephole, forget_bias
        self._w = self._b = None

    def build(self, input_shape):
        input_size = self._input_size(input_shape)
        both = [2] if self._bidirectional else []
        self._w = self.add_weight(
            "dynamicrnn/w", shape=both + [input_size + self._hidden_size, 4 * self._hidden_size],
            initializer=tf.compat.v1.glorot_uniform_initializer(seed=10))
        self._b = self.add_weight("dynamicrnn/b", shape=both + [4 * self._hidden_size],
                                  initializer=tf.compat.v1.zeros_initializer())
        super().build(input_shape)

    def call(self, x, seq_length=None, init_h=None, init_c=None, weight=None, bias=None):
        x = tf.convert_to_tensor(x, dtype=self.dtype)
        w = self._w if weight is None else weight
        b = self._b if bias is None else bias
        if not self._bidirectional:
            return self._one_direction(x, seq_length, init_h, init_c, w, b)
        # BIDIRECTIONAL: weights, biases and initial states stack [forward, backward];
        # every output stacks the two directions on a new axis 0, the backward one
        # read over reversed sequences and put back in time order.
        lengths = seq_length if seq_length is not None else \
            tf.fill(tf.shape(x)[1:2], tf.shape(x)[0])

        def reverse(t):
            return tf.reverse_sequence(t, tf.cast(lengths, tf.int64), seq_axis=0, batch_axis=1)

        def part(state, index):
            return None if state is None else tf.convert_to_tensor(state, self.dtype)[index]

        forward = self._one_direction(x, seq_length, part(init_h, 0), part(init_c, 0),
                                      w[0], b[0])
        backward = self._one_direction(reverse(x), seq_length, part(init_h, 1),
                                       part(init_c, 1), w[1], b[1])
        return tuple(tf.stack([f, reverse(r)]) for f, r in zip(forward, backward))

    def _one_direction(self, x, seq_length, init_h, init_c, w, b):
        clip, forget_bias = self._cell_clip, self.forget_bias

        def step(x_t, state):
            h, c = state
            gates = tf.matmul(tf.concat([x_t, h], axis=1), w) + b
            i, j, f, o = tf.split(gates, 4, axis=1)
            i, j, f, o = tf.sigmoid(i), tf.tanh(j), tf.sigmoid(f + forget_bias), tf.sigmoid(o)
            c_new = f * c + i * j
            if clip > 0:
                c_new = tf.clip_by_value(c_new, -clip, clip)
            tanhc = tf.tanh(c_new)
            h_new = o * tanhc
            return (h_new, c_new), (h_new, h_new, c_new, i, j, f, o, tanhc)

        initial = (self._initial(init_h, x), self._initial(init_c, x))
        return self._scan(step, x, seq_length, initial, 8)


class DynamicGRUV2(_TimeMajorRecurrence):
    """Fused time-major GRU (see the module doc for outputs and weights)."""

    _PREFIX, _NAME = "dynamicgruv2", "dynamic_gru_v2"

    def __init__(self, hidden_size, dtype, direction=DYNAMIC_RNN_UNIDIRECTION, cell_depth=1,
                 keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh",
                 gate_order="zrh", reset_after=True, is_training=True):
        if gate_order not in ("zrh", "rzh"):
            raise ValueError("DynamicGRUV2 gate_order must be 'zrh' or 'rzh'; got %r"
                             % (gate_order,))
        super().__init__(hidden_size, dtype, direction, cell_depth, keep_prob, cell_clip,
                         num_proj, time_major, activation, is_training, name=self._NAME)
        self.gate_order, self.reset_after = gate_order, bool(reset_after)
        self._weights = None

    def build(self, input_shape):
        input_size = self._input_size(input_shape)
        hidden = self._hidden_size
        stdv = 1.0 / math.sqrt(hidden)
        init = tf.compat.v1.random_uniform_initializer(-stdv, stdv)
        self._weights = [
            self.add_weight(self._PREFIX + "/weight_input", [input_size, 3 * hidden],
                            initializer=init),
            self.add_weight(self._PREFIX + "/weight_hidden", [hidden, 3 * hidden],
                            initializer=init),
            self.add_weight(self._PREFIX + "/bias_input", [3 * hidden], initializer=init),
            self.add_weight(self._PREFIX + "/bias_hidden", [3 * hidden], initializer=init)]
        super().build(input_shape)

    def _split(self, gates):
        first, second, new = tf.split(gates, 3, axis=1)
        return (first, second, new) if self.gate_order == "zrh" else (second, first, new)

    def call(self, x, seq_length=None, init_h=None):
        return self._gru(x, None, seq_length, init_h)

    def _gru(self, x, weight_att, seq_length, init_h):
        """The GRU; with ``weight_att`` ``[T, batch]`` the AUGRU (see DynamicAUGRU)."""
        x = tf.convert_to_tensor(x, dtype=self.dtype)
        w_in, w_hid, b_in, b_hid = self._weights
        hidden = self._hidden_size
        reset_after = self.reset_after
        # the columns of the candidate ("h") gate in weight_hidden / bias_hidden
        new_cols = slice(2 * hidden, 3 * hidden)

        def step(inputs, state):
            x_t, att_t = inputs if weight_att is not None else (inputs, None)
            h = state[0]
            zx, rx, nx = self._split(tf.matmul(x_t, w_in) + b_in)
            zh, rh, nh = self._split(tf.matmul(h, w_hid) + b_hid)
            z, r = tf.sigmoid(zx + zh), tf.sigmoid(rx + rh)
            if reset_after:
                hidden_new = nh
                n = tf.tanh(nx + r * hidden_new)
            else:
                hidden_new = tf.matmul(r * h, w_hid[:, new_cols]) + b_hid[new_cols]
                n = tf.tanh(nx + hidden_new)
            if att_t is None:
                return (z * h + (1.0 - z) * n,), (None, None, z, r, n, hidden_new)
            z_att = (1.0 - att_t[:, None]) * z
            return (z_att * h + (1.0 - z_att) * n,), (None, None, z, z_att, r, n, hidden_new)

        def with_h(step_fn):
            def wrapped(inputs, state):
                new_state, outputs = step_fn(inputs, state)
                return new_state, (new_state[0], new_state[0]) + outputs[2:]
            return wrapped

        inputs = x if weight_att is None else (x, tf.convert_to_tensor(weight_att, self.dtype))
        return self._scan(with_h(step), inputs, seq_length, (self._initial(init_h, x),),
                          6 if weight_att is None else 7)


class DynamicAUGRU(DynamicGRUV2):
    """GRU with an attentional update gate (AUGRU, as in DIN: arXiv:1809.03672).

    ``call(x, weight_att, seq_length=None, init_h=None)`` with ``weight_att``
    ``[T, batch]`` returns ``(y, output_h, update, update_att, reset, new,
    hidden_new)``: ``update_att = (1 - weight_att) * update`` and
    ``h' = update_att * h + (1 - update_att) * n``, i.e. attention 1 takes the
    new candidate fully, 0 keeps the state.  This is the published AUGRU in this
    layer's gate convention; the kernel's own formula is not documented
    publicly, so treat it as our reading.
    """

    _PREFIX, _NAME = "dynamicaugru", "dynamic_augru"

    def call(self, x, weight_att, seq_length=None, init_h=None):  # pylint: disable=arguments-differ
        return self._gru(x, weight_att, seq_length, init_h)


def npu_dynamic_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
                    scope=None):
    """``(outputs, state)`` of ``cell`` over time-major ``inputs`` ``[T, batch, ...]``.

    Unrolled with ``static_rnn`` as in the original; ``outputs`` is the per-step
    outputs stacked time-major, ``[T, batch, output_size]``.
    """
    steps = tf.unstack(inputs, axis=0)
    outputs, state = tf.compat.v1.nn.static_rnn(
        cell, steps, initial_state=initial_state, dtype=dtype,
        sequence_length=sequence_length, scope=scope)
    return tf.stack(outputs, axis=0), state
