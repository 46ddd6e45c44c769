"""``tf.contrib.crf``: a linear-chain CRF over per-step tag scores (small code of ours).

Sequence taggers of TF 1.15's time (BiLSTM-CRF named-entity models) score
each step's tags with a network and let a CRF add tag-to-tag transition
scores ``transition_params[i, j]`` (tag i followed by tag j):

- ``crf_sequence_score``: the score of given tag paths (unary + binary),
- ``crf_log_norm``: log of the sum over all paths (the forward algorithm),
- ``crf_log_likelihood``: their difference, the training objective; it makes
  the ``transitions`` variable [num_tags, num_tags] when none is given,
- ``crf_decode``: the best path in the graph (Viterbi) and its score,
- ``viterbi_decode``: the same on numpy arrays, for one sequence.

Steps at or past a sequence's length add nothing; ``crf_decode`` gives tag 0
there. Everything else of TF 1.15's module (its RNN cells, multi-tag scores)
raises ``ContribAttributeNotProvided``.
"""

import numpy as np
import tensorflow as tf

from npu_bridge.tf1.errors import not_provided_getattr


def _steps_mask(sequence_lengths, max_time, dtype):
    return tf.sequence_mask(sequence_lengths, maxlen=max_time, dtype=dtype)


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """Sum over the steps within each length of ``inputs[b, t, tag_indices[b, t]]``: [batch]."""
    inputs = tf.convert_to_tensor(inputs)
    tags = tf.cast(tag_indices, tf.int32)
    picked = tf.gather(inputs, tags, axis=2, batch_dims=2)  # [batch, time]
    mask = _steps_mask(sequence_lengths, tf.shape(inputs)[1], inputs.dtype)
    return tf.reduce_sum(picked * mask, axis=1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """Sum of ``transition_params[tag[t-1], tag[t]]`` over each sequence's steps: [batch]."""
    transition_params = tf.convert_to_tensor(transition_params)
    tags = tf.cast(tag_indices, tf.int32)
    pairs = tf.stack([tags[:, :-1], tags[:, 1:]], axis=-1)  # [batch, time - 1, 2]
    scores = tf.gather_nd(transition_params, pairs)
    mask = _steps_mask(sequence_lengths, tf.shape(tags)[1], transition_params.dtype)[:, 1:]
    return tf.reduce_sum(scores * mask, axis=1)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The score of each given tag path: [batch]."""
    inputs = tf.convert_to_tensor(inputs)
    transition_params = tf.cast(transition_params, inputs.dtype)
    return (crf_unary_score(tag_indices, sequence_lengths, inputs)
            + crf_binary_score(tag_indices, sequence_lengths, transition_params))


def _time_major_scan(step, inputs, sequence_lengths, initializer):
    """``tf.scan`` of ``step(state, (unary, active))`` over steps 1.. of batch-major ``inputs``."""
    time_major = tf.transpose(inputs, [1, 0, 2])[1:]
    steps = tf.range(1, tf.shape(inputs)[1])
    active = tf.less(steps[:, None], tf.cast(sequence_lengths, tf.int32)[None, :])  # [time-1, b]
    return tf.scan(step, (time_major, active), initializer=initializer)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """log of the summed exp-scores of every tag path within each length: [batch]."""
    inputs = tf.convert_to_tensor(inputs)
    transition_params = tf.cast(transition_params, inputs.dtype)

    def forward(alpha, elems):
        unary, active = elems
        moved = tf.reduce_logsumexp(alpha[:, :, None] + transition_params[None], axis=1) + unary
        return tf.where(active[:, None], moved, alpha)

    alphas = _time_major_scan(forward, inputs, sequence_lengths, inputs[:, 0])
    final = tf.concat([inputs[None, :, 0], alphas], axis=0)[-1]
    log_norm = tf.reduce_logsumexp(final, axis=1)
    return tf.where(tf.less_equal(sequence_lengths, 0), tf.zeros_like(log_norm), log_norm)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """(log-likelihood of each tag path [batch], transition_params).

    Without ``transition_params`` a variable ``transitions`` [num_tags,
    num_tags] is made in the current variable scope, as TF 1.15 did.
    """
    inputs = tf.convert_to_tensor(inputs)
    if transition_params is None:
        num_tags = inputs.shape[2]
        if num_tags is None:
            raise ValueError("crf_log_likelihood: inputs must have a static number of tags "
                             "(last dimension) to make the transitions variable; got shape %s"
                             % (inputs.shape,))
        transition_params = tf.compat.v1.get_variable("transitions", [num_tags, num_tags],
                                                      dtype=inputs.dtype)
    score = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    return score - crf_log_norm(inputs, sequence_lengths, transition_params), transition_params


def crf_decode(potentials, transition_params, sequence_length):
    """(best tag path [batch, time] int32, its score [batch]) by Viterbi in the graph."""
    potentials = tf.convert_to_tensor(potentials)
    transition_params = tf.cast(transition_params, potentials.dtype)
    num_tags = tf.shape(potentials)[2]
    stay = tf.range(num_tags)[None, :]  # past a sequence's end each tag points to itself

    def forward(state, elems):
        alpha, _ = state
        unary, active = elems
        scores = alpha[:, :, None] + transition_params[None]
        best_previous = tf.argmax(scores, axis=1, output_type=tf.int32)
        moved = tf.reduce_max(scores, axis=1) + unary
        return (tf.where(active[:, None], moved, alpha),
                tf.where(active[:, None], best_previous, tf.broadcast_to(stay,
                                                                         tf.shape(best_previous))))

    first = potentials[:, 0]
    alphas, backpointers = _time_major_scan(
        forward, potentials, sequence_length,
        (first, tf.zeros_like(first, dtype=tf.int32)))
    final = tf.concat([first[None], alphas], axis=0)[-1]
    best_score = tf.reduce_max(final, axis=1)
    last_tag = tf.argmax(final, axis=1, output_type=tf.int32)
    earlier = tf.scan(lambda tag, pointers: tf.gather(pointers, tag, batch_dims=1),
                      tf.reverse(backpointers, [0]), initializer=last_tag)  # times T-2 .. 0
    tags = tf.transpose(tf.concat([tf.reverse(earlier, [0]), last_tag[None]], axis=0))
    mask = _steps_mask(sequence_length, tf.shape(potentials)[1], tf.bool)
    return tf.where(mask, tags, tf.zeros_like(tags)), best_score


def viterbi_decode(score, transition_params):
    """(best tag path as a list of ints, its score) of one sequence's ``score`` [time, num_tags]."""
    score = np.asarray(score)
    transition_params = np.asarray(transition_params)
    trellis = np.zeros_like(score)
    backpointers = np.zeros(score.shape, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        candidates = trellis[t - 1][:, None] + transition_params
        trellis[t] = score[t] + candidates.max(axis=0)
        backpointers[t] = candidates.argmax(axis=0)
    path = [int(trellis[-1].argmax())]
    for pointers in backpointers[:0:-1]:
        path.append(int(pointers[path[-1]]))
    path.reverse()
    return path, trellis[-1].max()


__getattr__ = not_provided_getattr("tf.contrib.crf")
