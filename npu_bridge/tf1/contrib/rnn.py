"""``tf.contrib.rnn``: the RNN cells and functions TF 2.15 keeps in ``tf.compat.v1.nn``.

Cells (``BasicLSTMCell``, ``LSTMCell``, ``GRUCell``, ``BasicRNNCell``,
``MultiRNNCell``, ``DropoutWrapper``, ``ResidualWrapper``, ``DeviceWrapper``,
``LSTMStateTuple``, ``RNNCell``) from ``tf.compat.v1.nn.rnn_cell``;
``static_rnn``, ``static_bidirectional_rnn``, ``static_state_saving_rnn``
from ``tf.compat.v1.nn``.  ``LSTMBlockCell`` is ``LSTMCell`` (same gates,
other variable names, so checkpoints of the fused cell do not load).
Contrib-only cells (LayerNormBasicLSTMCell, NASCell, AttentionCellWrapper
...) are not provided.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import first_of, not_provided_getattr

_v1_nn = tf.compat.v1.nn


def LSTMBlockCell(num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                  dtype=None, reuse=None, name="lstm_cell"):
    """contrib's fused LSTM cell, computed by ``LSTMCell`` (the same maths)."""
    return _v1_nn.rnn_cell.LSTMCell(num_units, use_peepholes=use_peephole, cell_clip=cell_clip,
                                     forget_bias=forget_bias, reuse=reuse, name=name, dtype=dtype)


__getattr__ = not_provided_getattr(
    "tf.contrib.rnn", first_of(_v1_nn.rnn_cell, _v1_nn))
