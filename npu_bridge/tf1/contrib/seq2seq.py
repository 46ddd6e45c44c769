"""``tf.contrib.seq2seq``: ``tile_batch`` and ``sequence_loss`` (small code of ours).

``tile_batch(t, multiplier)`` repeats each batch entry ``multiplier`` times
in place (``[a, b] -> [a, a, b, b]``), for every tensor of a nested
structure, as beam search wants; ``sequence_loss(logits, targets, weights,
average_across_timesteps=True, average_across_batch=True, sum_over_timesteps=False,
sum_over_batch=False, softmax_loss_function=None)`` is the weighted
per-token softmax cross-entropy with TF 1.15's averaging rules.  The
decoders, helpers and attention wrappers are not provided.
"""

import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr


def _tile_one(t, multiplier):
    t = tf.convert_to_tensor(t, name="t")
    shape = tf.shape(t)
    tiled = tf.tile(tf.expand_dims(t, 1), tf.concat([[1, multiplier], tf.ones_like(shape[1:])], 0))
    tiled = tf.reshape(tiled, tf.concat([[shape[0] * multiplier], shape[1:]], 0))
    static = t.shape
    if static.ndims is not None:
        batch = static[0] * multiplier if static[0] is not None else None
        tiled.set_shape([batch] + static.as_list()[1:])
    return tiled


def tile_batch(t, multiplier, name=None):
    """Each batch entry of every tensor in ``t`` repeated ``multiplier`` times, in place."""
    with tf.name_scope(name or "tile_batch"):
        return tf.nest.map_structure(lambda x: _tile_one(x, multiplier), t)


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """Weighted cross-entropy of ``logits`` [batch, time, classes] against ``targets`` [batch, time]."""
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("sequence_loss: average_across_timesteps and sum_over_timesteps "
                         "cannot both be True")
    if average_across_batch and sum_over_batch:
        raise ValueError("sequence_loss: average_across_batch and sum_over_batch "
                         "cannot both be True")
    with tf.name_scope(name or "sequence_loss"):
        classes = tf.shape(logits)[2]
        flat_logits = tf.reshape(logits, [-1, classes])
        flat_targets = tf.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=flat_targets, logits=flat_logits)
        else:
            crossent = softmax_loss_function(labels=flat_targets, logits=flat_logits)
        weights = tf.cast(weights, crossent.dtype)
        crossent *= tf.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            return tf.math.divide_no_nan(tf.reduce_sum(crossent), tf.reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            count = tf.cast(tf.math.count_nonzero(weights), crossent.dtype)
            return tf.math.divide_no_nan(tf.reduce_sum(crossent), count)
        crossent = tf.reshape(crossent, tf.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return tf.math.divide_no_nan(tf.reduce_sum(crossent, axis=axis),
                                         tf.reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            count = tf.cast(tf.math.count_nonzero(weights, axis=axis), crossent.dtype)
            return tf.math.divide_no_nan(tf.reduce_sum(crossent, axis=axis), count)
        return crossent


_DECODING = ("a tf.compat.v1.while_loop over your cell, or TensorFlow Addons' tfa.seq2seq "
             "(the same components for TF 2.x Keras)")

__getattr__ = not_provided_getattr(
    "tf.contrib.seq2seq",
    instead={name: _DECODING for name in (
        "BasicDecoder", "BeamSearchDecoder", "dynamic_decode", "TrainingHelper",
        "GreedyEmbeddingHelper", "SampleEmbeddingHelper", "ScheduledEmbeddingTrainingHelper",
        "AttentionWrapper", "BahdanauAttention", "LuongAttention", "Helper", "Decoder",
        "AttentionWrapperState", "BasicDecoderOutput", "FinalBeamSearchDecoderOutput",
        "gather_tree", "hardmax")})
