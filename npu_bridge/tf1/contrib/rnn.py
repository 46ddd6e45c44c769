"""``tf.contrib.rnn``: TF 2.15's RNN cells plus contrib's own, with TF 1.15's variable names.

Cells (``BasicLSTMCell``, ``LSTMCell``, ``GRUCell``, ``BasicRNNCell``,
``MultiRNNCell``, ``DropoutWrapper``, ``ResidualWrapper``, ``DeviceWrapper``,
``LSTMStateTuple``, ``RNNCell``) from ``tf.compat.v1.nn.rnn_cell``;
``static_rnn``, ``static_bidirectional_rnn``, ``static_state_saving_rnn``
from ``tf.compat.v1.nn``.  Contrib's cells, each creating the variables a TF
1.15 checkpoint holds (so it restores into the same script):

- ``LSTMBlockCell`` is ``LSTMCell`` (TF 1.15 gave the fused cell the same
  ``lstm_cell/kernel``/``bias`` names, layout i, j, f, o, and maths);
- ``GRUBlockCell``/``GRUBlockCellV2`` are ``GRUCell`` (``gru_cell/gates/...``,
  ``gru_cell/candidate/...``, same maths);
- ``LSTMBlockFusedCell`` (``rnn_fused``) and ``LayerNormBasicLSTMCell``
  (``rnn_layer_norm``) are small code of ours.

``stack_bidirectional_dynamic_rnn`` stacks ``bidirectional_dynamic_rnn``
layers under ``stack_bidirectional_rnn/cell_<k>``, as TF 1.15 named them.
Other contrib-only cells (NASCell, AttentionCellWrapper ...) are not
provided.
"""

import tensorflow as tf

from npu_bridge.tf1.contrib.rnn_fused import LSTMBlockFusedCell  # noqa: F401
from npu_bridge.tf1.contrib.rnn_layer_norm import LayerNormBasicLSTMCell  # noqa: F401
from npu_bridge.tf1.errors import first_of, not_provided_getattr

_v1_nn = tf.compat.v1.nn


def LSTMBlockCell(num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                  dtype=None, reuse=None, name="lstm_cell"):
    """contrib's fused LSTM cell, computed by ``LSTMCell`` (same variables and maths)."""
    return _v1_nn.rnn_cell.LSTMCell(num_units, use_peepholes=use_peephole, cell_clip=cell_clip,
                                     forget_bias=forget_bias, reuse=reuse, name=name, dtype=dtype)


def GRUBlockCell(num_units=None, reuse=None, cell_size=None, name="gru_cell"):
    """contrib's fused GRU cell, computed by ``GRUCell`` (same variables and maths)."""
    units = num_units if num_units is not None else cell_size
    if units is None:
        raise ValueError("GRUBlockCell needs num_units (or cell_size); got neither")
    return _v1_nn.rnn_cell.GRUCell(units, reuse=reuse, name=name)


GRUBlockCellV2 = GRUBlockCell


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False):
    """Bidirectional layers stacked, each fed the previous one's concatenated outputs.

    Returns ``(outputs, output_states_fw, output_states_bw)`` as TF 1.15 did.
    """
    if not cells_fw or not cells_bw or len(cells_fw) != len(cells_bw):
        raise ValueError("stack_bidirectional_dynamic_rnn needs cells_fw and cells_bw of the "
                         "same non-zero length; got %d and %d"
                         % (len(cells_fw or []), len(cells_bw or [])))
    states_fw, states_bw = [], []
    layer_input = inputs
    with tf.compat.v1.variable_scope(scope or "stack_bidirectional_rnn"):
        for index, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            initial_fw = initial_states_fw[index] if initial_states_fw else None
            initial_bw = initial_states_bw[index] if initial_states_bw else None
            with tf.compat.v1.variable_scope("cell_%d" % index):
                (out_fw, out_bw), (state_fw, state_bw) = _v1_nn.bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, layer_input, initial_state_fw=initial_fw,
                    initial_state_bw=initial_bw, sequence_length=sequence_length,
                    parallel_iterations=parallel_iterations, dtype=dtype,
                    swap_memory=swap_memory, time_major=time_major)
                layer_input = tf.concat([out_fw, out_bw], 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return layer_input, tuple(states_fw), tuple(states_bw)


__getattr__ = not_provided_getattr(
    "tf.contrib.rnn", first_of(_v1_nn.rnn_cell, _v1_nn))
