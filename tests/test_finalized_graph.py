"""Work on a finalised graph is done on a thread as the graph is finalised, or in place."""

import threading
import time

import pytest
import tensorflow as tf

from npu_bridge.core.finalized_graph import AheadOfSession


def _graph():
    graph = tf.Graph()
    with graph.as_default():
        tf.constant([1.0, 2.0], name="a")
    return graph


class _Recorder(object):
    """The work: the graph's GraphDef, with the thread that made it and the ops it saw."""

    def __init__(self, fail_on_thread=False):
        self.calls = []
        self._fail_on_thread = fail_on_thread

    def __call__(self, graph):
        thread = threading.current_thread()
        if self._fail_on_thread and thread is not threading.main_thread():
            raise ValueError("failed on the thread")
        self.calls.append(thread.name)
        return graph.as_graph_def(add_shapes=True)


def test_the_work_is_done_ahead_once_the_graph_is_finalised():
    graph, work = _graph(), _Recorder()
    ahead = AheadOfSession(graph, work)
    time.sleep(0.1)
    assert work.calls == []  # not before the graph is final: ops may still be added
    with graph.as_default():
        tf.constant(3.0, name="b")
    graph.finalize()
    deadline = time.monotonic() + 30
    while not work.calls and time.monotonic() < deadline:
        time.sleep(0.01)
    made = ahead.result()
    assert work.calls == ["npu_bridge-finalized-graph"]  # made once, on the thread
    assert sorted(node.name for node in made.node) == ["a", "b"]
    assert made == graph.as_graph_def(add_shapes=True)


def test_without_finalisation_the_work_is_done_in_place():
    graph, work = _graph(), _Recorder()
    ahead = AheadOfSession(graph, work)
    made = ahead.result()
    assert work.calls == [threading.current_thread().name]
    assert [node.name for node in made.node] == ["a"]


def test_work_failing_on_the_thread_is_done_again_in_place():
    graph, work = _graph(), _Recorder(fail_on_thread=True)
    graph.finalize()
    ahead = AheadOfSession(graph, work)
    assert [node.name for node in ahead.result().node] == ["a"]
    assert work.calls == [threading.current_thread().name]


def test_work_failing_in_place_raises():
    def work(graph):
        raise ValueError("bad graph %s" % graph.finalized)

    ahead = AheadOfSession(_graph(), work)
    with pytest.raises(ValueError, match="bad graph False"):
        ahead.result()
