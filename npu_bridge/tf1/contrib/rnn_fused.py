"""contrib's ``LSTMBlockFusedCell``: a whole time-major LSTM in TensorFlow's BlockLSTM op.

``LSTMBlockFusedCell(num_units, forget_bias=1.0, cell_clip=None,
use_peephole=False, dtype=None, name="lstm_cell")`` called on ``[time,
batch, depth]`` inputs (or a list of ``[batch, depth]``) with
``initial_state=None, dtype=None, sequence_length=None`` returns
``(outputs, LSTMStateTuple(c, h))``, as TF 1.15's.  Its variables are
``<name>/kernel`` ``[depth + num_units, 4 * num_units]`` (gates i, j, f, o),
``<name>/bias`` and, with peepholes, ``w_i_diag``/``w_f_diag``/``w_o_diag``:
TF 1.15's names and layout, so its checkpoints restore.  With
``sequence_length``, outputs past a sequence's end are zero and its final
state is the one at its end.  The op is TensorFlow 2.15's own (the kernel
TF 1.15 contrib used), with its registered gradient.
"""

import tensorflow as tf


class LSTMBlockFusedCell(tf.compat.v1.layers.Layer):
    """A time-major LSTM over all steps in one op (TF 1.15 contrib)."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 dtype=None, name="lstm_cell", reuse=None):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._cell_clip = cell_clip if cell_clip is not None else -1
        self._use_peephole = use_peephole

    @property
    def num_units(self):
        return self._num_units

    def build(self, input_shape):
        depth = tf.compat.dimension_value(tf.TensorShape(input_shape)[2])
        if depth is None:
            raise ValueError("LSTMBlockFusedCell needs the input depth known; got shape %s"
                             % (input_shape,))
        self._kernel = self.add_weight("kernel", [depth + self._num_units, self._num_units * 4])
        self._bias = self.add_weight("bias", [self._num_units * 4],
                                     initializer=tf.compat.v1.constant_initializer(0.0))
        if self._use_peephole:
            self._peepholes = [self.add_weight(name, [self._num_units])
                               for name in ("w_i_diag", "w_f_diag", "w_o_diag")]
        self.built = True

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        is_list = isinstance(inputs, list)
        if is_list:
            inputs = tf.stack(inputs)
        inputs_shape = tf.shape(inputs)
        time_len, batch_size = inputs_shape[0], inputs_shape[1]
        dtype = dtype or inputs.dtype
        if initial_state is None:
            zeros = tf.zeros(tf.stack([batch_size, self._num_units]), dtype=dtype)
            initial_c, initial_h = zeros, zeros
        else:
            initial_c, initial_h = initial_state
        if sequence_length is None:
            max_len = tf.cast(time_len, tf.int64)
        else:
            max_len = tf.cast(tf.reduce_max(sequence_length), tf.int64)
        if self._use_peephole:
            wci, wcf, wco = self._peepholes
        else:
            wci = wcf = wco = tf.zeros([self._num_units], dtype=dtype)
        _, cell_states, _, _, _, _, outputs = tf.raw_ops.BlockLSTM(
            seq_len_max=max_len, x=inputs, cs_prev=initial_c, h_prev=initial_h, w=self._kernel,
            wci=wci, wcf=wcf, wco=wco, b=self._bias, forget_bias=self._forget_bias,
            cell_clip=self._cell_clip, use_peephole=self._use_peephole)
        if sequence_length is None:
            final_c, final_h = cell_states[-1], outputs[-1]
        else:
            mask = tf.transpose(tf.sequence_mask(sequence_length, time_len, dtype=dtype))
            outputs *= mask[:, :, None]
            with_start_c = tf.concat([initial_c[None], cell_states], 0)
            with_start_h = tf.concat([initial_h[None], outputs], 0)
            at_end = tf.stack([tf.cast(sequence_length, tf.int32), tf.range(batch_size)], axis=1)
            final_c = tf.gather_nd(with_start_c, at_end)
            final_h = tf.gather_nd(with_start_h, at_end)
        if is_list:
            outputs = tf.unstack(outputs)
        return outputs, tf.compat.v1.nn.rnn_cell.LSTMStateTuple(final_c, final_h)
