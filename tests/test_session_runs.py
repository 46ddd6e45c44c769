"""A training session's cached runs return what Session.run returns, and fail as it fails."""

import collections

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2

from conftest import dataset_input_fn, linear_sgd_step, make_data
from npu_bridge.core import session_runs
from npu_bridge.device_loop.read_order import ancestors
from npu_bridge.npu_init import NPUEstimator, NPURunConfig, NPUEstimatorSpec
from npu_bridge.tf_private import estimator as estimator_lib

Pair = collections.namedtuple("Pair", ["first", "second"])


class _Key(object):
    """A dict key of the kind MonitoredSession uses (hook objects)."""


def _graph():
    """A finalised graph: a counter variable, an increment, a fed scale and their reads."""
    graph = tf.Graph()
    with graph.as_default():
        counter = tf.Variable(tf.constant(0, tf.int64), name="counter")
        scale = tf.compat.v1.placeholder_with_default(np.float32(1.0), [], name="scale")
        shift = tf.compat.v1.placeholder(tf.int32, [2], name="shift")
        bump = counter.assign_add(1, read_value=False)
        with tf.control_dependencies([bump]):
            after = tf.identity(counter.read_value(), name="after")
        scaled = tf.cast(after, tf.float32) * scale
        shifted = shift + 1
        init = tf.compat.v1.global_variables_initializer()
        read = counter.read_value()
        graph.finalize()
    parts = dict(read=read, counter=counter, scale=scale, shift=shift, bump=bump, after=after,
                 scaled=scaled, shifted=shifted, init=init)
    return graph, parts


def _sessions():
    """(plain session, session with the cached run, parts) over the same graph."""
    graph, parts = _graph()
    plain, cached = tf.compat.v1.Session(graph=graph), tf.compat.v1.Session(graph=graph)
    for session in (plain, cached):
        session.run(parts["init"])
    assert session_runs.install(cached)
    assert isinstance(cached.run, session_runs._CachedRun)  # pylint: disable=protected-access
    return plain, cached, parts


def test_cached_runs_return_what_session_run_returns_and_reuse_one_entry_per_structure():
    plain, cached, p = _sessions()
    key = _Key()
    structures = [
        lambda: {"caller": [p["bump"], p["after"]], key: {"scaled": p["scaled"]}},
        lambda: (p["after"], Pair(p["scaled"], p["bump"])),
        lambda: p["after"],
        lambda: [p["bump"]],
        lambda: {"counter": p["counter"]},  # a variable: its read made with it
    ]
    feeds = [None, {p["scale"]: 2.5}, {p["scale"]: np.float32(0.5)}, None, None]
    for _ in range(5):
        for make, feed in zip(structures, feeds):
            expected, got = plain.run(make(), feed_dict=feed), cached.run(make(), feed_dict=feed)
            assert type(got) is type(expected)
            assert repr(got) == repr(expected)
    with_feed = cached.run(p["shifted"], feed_dict={p["shift"]: [3, 4]})
    np.testing.assert_array_equal(with_feed, [4, 5])
    # one entry per (structure, fed tensors); the structures above were rebuilt each time
    assert len(cached.run._entries) == len(structures) + 1  # pylint: disable=protected-access
    assert plain.run(p["read"]) == cached.run(p["after"]) - 1 == 20


def test_what_the_cache_does_not_serve_takes_session_run_s_own_path():
    _, cached, p = _sessions()
    assert cached.run("after:0") == 1  # a name: Session.run resolves it
    metadata = config_pb2.RunMetadata()
    cached.run(p["after"], options=config_pb2.RunOptions(
        trace_level=config_pb2.RunOptions.FULL_TRACE), run_metadata=metadata)
    assert metadata.step_stats.dev_stats  # traced: the options reached the session
    assert cached.run(p["scale"], feed_dict={p["scale"]: 3.0}) == 3.0  # a fetched feed
    assert cached.run(p["scaled"], feed_dict={"scale:0": 2.0}) == 6.0  # a feed named by string
    # at most remembered as taking the plain path (the fetched feed)
    assert all(entry is session_runs._PLAIN  # pylint: disable=protected-access
               for entry in cached.run._entries.values())  # pylint: disable=protected-access


def test_feeds_and_errors_fail_as_session_run_fails():
    plain, cached, p = _sessions()
    for session in (plain, cached):
        session.run(p["shifted"], feed_dict={p["shift"]: [1, 2]})  # the entry exists for the cache
    failures = []
    for session in (plain, cached):
        caught = []
        with pytest.raises(ValueError) as info:
            session.run(p["shifted"], feed_dict={p["shift"]: [1, 2, 3]})
        caught.append(str(info.value))
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            session.run(p["shifted"])  # the placeholder is not fed
        caught.append((type(info.value), info.value.op.name))
        failures.append(caught)
    assert failures[0] == failures[1]
    assert failures[1][-1] == (tf.errors.InvalidArgumentError, "shift")  # the op is named
    cached.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        cached.run(p["after"])


def test_a_session_run_already_replaced_is_left_alone():
    graph, p = _graph()
    session = tf.compat.v1.Session(graph=graph)
    session.run = lambda *args, **kwargs: "theirs"
    assert not session_runs.install(session)
    assert session.run(p["after"]) == "theirs"


def test_npu_estimator_trains_through_the_cached_run_with_exact_steps(tmp_path):
    seen = []
    ordered = []

    class Record(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            # the read the stock hooks fetch: the step reads it before it runs
            self._step = estimator_lib.get_or_create_global_step_read()
            loops = [op for op in self._step.graph.get_operations()
                     if op.type in ("While", "StatelessWhile")]
            ordered.extend(self._step.op in ancestors([loop]) for loop in loops)

        def before_run(self, run_context):
            return tf.compat.v1.train.SessionRunArgs(self._step)

        def after_run(self, run_context, run_values):
            seen.append((isinstance(run_context.session.run, session_runs._CachedRun),  # pylint: disable=protected-access
                         int(run_values.results)))

    def model_fn(features, labels, mode, params):
        loss, _, train_op = linear_sgd_step(features, labels)
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    results = {}
    for n in (1, 5):
        seen.clear()
        ordered.clear()
        estimator = NPUEstimator(model_fn, config=NPURunConfig(
            model_dir=str(tmp_path / str(n)), iterations_per_loop=n, save_checkpoints_steps=10))
        estimator.train(dataset_input_fn(), steps=20, hooks=[Record()])
        assert all(installed for installed, _ in seen)
        # the loop waits for that read: otherwise it races the loop's first step
        assert ordered == ([] if n == 1 else [True])
        # the global step read fetched beside each run: the step the run started from
        assert [step for _, step in seen] == list(range(0, 20, n))
        results[n] = estimator.get_variable_value("w")
    np.testing.assert_allclose(results[1], results[5], rtol=1e-6)

    class Probe(tf.compat.v1.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            seen.append(isinstance(run_context.session.run, session_runs._CachedRun))  # pylint: disable=protected-access

    seen.clear()
    # 10 batches: two runs of 5 complete (a run that meets the end of data raises)
    metrics = estimator.evaluate(dataset_input_fn(n=40, repeat=False), hooks=[Probe()])
    assert metrics["global_step"] == 20 and len(seen) == 2 and all(seen)
    seen.clear()

    def predict_fn(features, labels, mode, params):
        w = tf.compat.v1.get_variable("w", [4, 1])
        return NPUEstimatorSpec(mode, predictions={"y": tf.matmul(features, w)})

    predictor = NPUEstimator(predict_fn, config=NPURunConfig(model_dir=str(tmp_path / "5")))
    predicted = list(predictor.predict(dataset_input_fn(n=8, repeat=False), hooks=[Probe()]))
    assert len(predicted) == 8 and len(seen) == 2 and all(seen)  # two batches of 4
    first = make_data(8)[0][:4]  # the features predicted first (dataset_input_fn's data)
    np.testing.assert_allclose(np.stack([p["y"] for p in predicted[:4]]), first @ results[5],
                               rtol=1e-5)
