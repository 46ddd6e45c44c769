"""tf.contrib.crf of the TF1 mode against brute force over every tag path, and trained in a graph."""
import itertools

import numpy as np
import tensorflow as tf

from npu_bridge.tf1.contrib import crf

RNG = np.random.RandomState(3)
BATCH, TIME, TAGS = 3, 4, 3
INPUTS = RNG.randn(BATCH, TIME, TAGS).astype(np.float32)
TRANSITIONS = RNG.randn(TAGS, TAGS).astype(np.float32)
LENGTHS = np.array([4, 2, 1], np.int32)
TAG_PATHS = np.array([[0, 2, 1, 1], [2, 2, 0, 0], [1, 0, 0, 0]], np.int32)


def _path_score(inputs, path):
    return (sum(inputs[t, tag] for t, tag in enumerate(path))
            + sum(TRANSITIONS[a, b] for a, b in zip(path, path[1:])))


def _all_paths(length):
    return list(itertools.product(range(TAGS), repeat=length))


def _evaluate(build):
    """The values of the tensors ``build()`` returns, in a graph and session of their own."""
    with tf.Graph().as_default():
        tensors = build()
        with tf.compat.v1.Session() as sess:
            return sess.run(tensors)


def test_scores_and_likelihood_match_brute_force():
    params = []

    def build():
        likelihood, given = crf.crf_log_likelihood(INPUTS, TAG_PATHS, LENGTHS, TRANSITIONS)
        params.append(given)
        return (crf.crf_sequence_score(INPUTS, TAG_PATHS, LENGTHS, TRANSITIONS),
                crf.crf_log_norm(INPUTS, LENGTHS, TRANSITIONS), likelihood)
    score, log_norm, likelihood = _evaluate(build)
    for b, length in enumerate(LENGTHS):
        own = _path_score(INPUTS[b, :length], TAG_PATHS[b, :length])
        every = [_path_score(INPUTS[b, :length], p) for p in _all_paths(length)]
        total = np.log(np.sum(np.exp(every)))
        np.testing.assert_allclose(score[b], own, rtol=1e-5)
        np.testing.assert_allclose(log_norm[b], total, rtol=1e-5)
        np.testing.assert_allclose(likelihood[b], own - total, rtol=1e-4, atol=1e-5)
    assert params[0] is TRANSITIONS


def test_decoders_find_the_best_path():
    tags, best = _evaluate(lambda: crf.crf_decode(INPUTS, TRANSITIONS, LENGTHS))
    assert tags.dtype == np.int32 and tags.shape == (BATCH, TIME)
    for b, length in enumerate(LENGTHS):
        paths = _all_paths(length)
        scores = [_path_score(INPUTS[b, :length], p) for p in paths]
        expected = list(paths[int(np.argmax(scores))])
        assert tags[b, :length].tolist() == expected and not tags[b, length:].any()
        np.testing.assert_allclose(best[b], max(scores), rtol=1e-5)
        path, path_score = crf.viterbi_decode(INPUTS[b, :length], TRANSITIONS)
        assert path == expected
        np.testing.assert_allclose(path_score, max(scores), rtol=1e-5)


def test_likelihood_trains_the_transitions_variable_in_a_graph():
    # Tags that always alternate 0, 1, 0, 1 on uninformative inputs: only transitions can learn it.
    with tf.Graph().as_default():
        inputs = tf.zeros([4, 6, 2])
        tags = tf.constant([[0, 1, 0, 1, 0, 1]] * 4)
        likelihood, transitions = crf.crf_log_likelihood(inputs, tags, tf.fill([4], 6))
        assert transitions.name == "transitions:0" and transitions.shape == (2, 2)
        loss = -tf.reduce_mean(likelihood)
        train = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss)
        decoded, _ = crf.crf_decode(inputs, transitions, tf.fill([4], 6))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(30):
                sess.run(train)
            last, paths = sess.run([loss, decoded])
    assert last < 0.2 * first, (first, last)
    assert paths.tolist() == [[0, 1, 0, 1, 0, 1]] * 4
