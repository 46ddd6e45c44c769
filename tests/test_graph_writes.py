"""The graph is written to model_dir once per distinct graph, not once per train() call."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn, make_data
from npu_bridge.npu_init import NPUEstimator, NPURunConfig


def graph_records(model_dir):
    """(graph_def records, meta_graph_def records) in model_dir's event files."""
    graphs = metas = 0
    for path in glob.glob(os.path.join(model_dir, "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            graphs += event.HasField("graph_def")
            metas += event.HasField("meta_graph_def")
    return graphs, metas


def stock_graph_records(model_dir, calls):
    """The same counts for the stock Estimator running the same train() calls."""
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=5)
    estimator = tf.compat.v1.estimator.Estimator(
        linear_model_fn(host_call_kind=None), config=config, params={"host_logdir": model_dir})
    for batch in calls:
        estimator.train(dataset_input_fn(batch=batch), steps=6)
    return graph_records(model_dir)


@pytest.mark.parametrize("iterations,host_call,summary_steps", [
    (1, None, 0), (10, None, 0),
    (10, "list", 2),  # summary writers of their own in each graph (host_call, loop summaries)
])
def test_unchanged_graph_written_once_changed_graph_again(tmp_path, iterations, host_call,
                                                          summary_steps):
    model_dir = str(tmp_path / "npu")
    estimator = NPUEstimator(
        linear_model_fn(host_call_kind=host_call), params={"host_logdir": model_dir + "/host"},
        config=NPURunConfig(model_dir=model_dir, iterations_per_loop=iterations,
                            save_checkpoints_steps=5, save_summary_steps=summary_steps))
    pbtxt = os.path.join(model_dir, "graph.pbtxt")

    estimator.train(dataset_input_fn(batch=4), steps=6)
    first = graph_records(model_dir)
    assert first == (1, 1)  # the finalised graph; not also the cached writer's unfinished one
    written_at = os.stat(pbtxt).st_mtime_ns
    estimator.train(dataset_input_fn(batch=4), steps=6)
    assert graph_records(model_dir) == first  # the same graph traced again: nothing written
    assert os.stat(pbtxt).st_mtime_ns == written_at
    assert tf.train.latest_checkpoint(model_dir).endswith("-12")  # checkpoints as always

    estimator.train(dataset_input_fn(batch=8), steps=6)  # other shapes: a new graph
    assert graph_records(model_dir) == (first[0] + 1, first[1] + 1)
    assert os.stat(pbtxt).st_mtime_ns != written_at

    stock = stock_graph_records(str(tmp_path / "stock"), [4, 4, 8])
    assert graph_records(model_dir)[0] < stock[0] and graph_records(model_dir)[1] < stock[1]


def _collective_graph(instance_key, width):
    """A graph like one rank's: a variable, a seeded-at-random initializer, a collective."""
    from tensorflow.python.ops import collective_ops
    with tf.Graph().as_default() as graph:
        v = tf.compat.v1.get_variable("v", [width], initializer=tf.compat.v1.glorot_uniform_initializer())
        collective_ops.all_reduce(v.read_value(), group_size=2, group_key=1,
                                  instance_key=instance_key, merge_op="Add", final_op="Id")
    return graph.as_graph_def(add_shapes=True)


def test_digest_ignores_instance_keys_and_seeds_but_not_shapes():
    from npu_bridge.core.checkpoint_saver import graph_digest
    first = graph_digest(_collective_graph(instance_key=7, width=3))
    assert graph_digest(_collective_graph(instance_key=4242, width=3)) == first
    assert graph_digest(_collective_graph(instance_key=7, width=4)) != first


class _Saves(tf.compat.v1.train.CheckpointSaverListener):
    def __init__(self):
        self.steps = []

    def after_save(self, session, global_step_value):
        self.steps.append(global_step_value)


def _files_of(model_dir, step):
    """{path: (mtime_ns, inode)} of checkpoint ``step``'s files."""
    return {path: (os.stat(path).st_mtime_ns, os.stat(path).st_ino)
            for path in glob.glob(os.path.join(model_dir, "model.ckpt-%d.*" % step))}


def test_second_call_does_not_rewrite_the_checkpoint_it_starts_from(tmp_path):
    model_dir = str(tmp_path / "npu")
    estimator = NPUEstimator(
        linear_model_fn(host_call_kind=None), params={"host_logdir": model_dir},
        config=NPURunConfig(model_dir=model_dir, iterations_per_loop=10,
                            save_checkpoints_steps=100))
    first = _Saves()
    estimator.train(dataset_input_fn(batch=4), steps=6, saving_listeners=[first])
    assert first.steps == [0, 6]  # a fresh model_dir: the start and the end, as stock
    at_6 = _files_of(model_dir, 6)
    assert len(at_6) == 3  # .index, .data, .meta

    second = _Saves()
    estimator.train(dataset_input_fn(batch=4), steps=6, saving_listeners=[second])
    assert second.steps == [6, 12]  # listeners still hear of the checkpoint it starts from
    assert _files_of(model_dir, 6) == at_6  # ...which was not written again
    reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(model_dir))
    assert tf.train.latest_checkpoint(model_dir).endswith("-12")  # the final one is written
    assert reader.get_tensor("global_step") == 12
    assert os.path.exists(tf.train.latest_checkpoint(model_dir) + ".meta")

    at_12 = _files_of(model_dir, 12)
    third = _Saves()  # another graph (batch 8): the starting checkpoint is saved with its .meta
    estimator.train(dataset_input_fn(batch=8), steps=6, saving_listeners=[third])
    assert third.steps == [12, 18]
    assert set(_files_of(model_dir, 12)) == set(at_12)
    assert all(_files_of(model_dir, 12)[path] != at_12[path] for path in at_12)
    assert tf.train.get_checkpoint_state(model_dir).model_checkpoint_path.endswith("-18")


def _graph_with_large_contents():
    """A GraphDef whose constants hold every byte value, quotes and backslashes included."""
    every_byte = np.tile(np.arange(256, dtype=np.uint8), 64)  # 16 KiB: escaped at C speed
    with tf.Graph().as_default() as graph:
        tf.constant(every_byte, name="bytes")
        tf.constant(np.frombuffer(b'"\\\'' * 1024, np.uint8), name="quotes")
        tf.constant(np.arange(10, dtype=np.float32), name="small")  # left to text_format
        tf.constant(np.linspace(0.1, 1.0, 4096, dtype=np.float32), name="floats")
    return graph.as_graph_def(add_shapes=True)


def test_graph_text_parses_back_to_the_graph_written(tmp_path):
    from google.protobuf import text_format
    from npu_bridge.core.graph_text_file import write_graph_text
    graph_def = _graph_with_large_contents()
    path = write_graph_text(graph_def, str(tmp_path), "graph.pbtxt")
    with open(path) as f:
        text = f.read()
    assert text_format.Parse(text, tf.compat.v1.GraphDef()) == graph_def
    stock = tf.io.write_graph(graph_def, str(tmp_path), "stock.pbtxt")
    with open(stock) as f:
        assert text_format.Parse(f.read(), tf.compat.v1.GraphDef()) == graph_def
    assert sorted(os.listdir(str(tmp_path))) == ["graph.pbtxt", "stock.pbtxt"]  # no temp file left


def test_graph_text_made_in_a_child_process_is_the_text_made_here(tmp_path, monkeypatch):
    from npu_bridge.core import graph_text as graph_text_lib
    from npu_bridge.core.graph_text_file import write_graph_text
    with tf.Graph().as_default() as graph:  # a loop body too: the library is formatted
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
        tf.constant(np.arange(4096, dtype=np.float32), name="data")
    assert graph.as_graph_def().library.function
    for graph_def in (_graph_with_large_contents(), graph.as_graph_def(add_shapes=True)):
        assert graph_text_lib.text_in_child(graph_def) == graph_text_lib.graph_text(graph_def)
    # a child that cannot start: the text is made in this process, the same file written
    in_child = write_graph_text(graph_def, str(tmp_path / "child"), "graph.pbtxt")
    monkeypatch.setattr(graph_text_lib.sys, "executable", str(tmp_path / "no-python"))
    with pytest.raises(OSError):
        graph_text_lib.text_in_child(graph_def)
    in_place = write_graph_text(graph_def, str(tmp_path / "here"), "graph.pbtxt")
    with open(in_child) as child, open(in_place) as here:
        assert child.read() == here.read()


def test_model_dir_graph_pbtxt_is_the_graph_of_the_events_file(tmp_path):
    """What NPUEstimator writes: its input data (a constant of 512 rows) included, byte for byte."""
    from google.protobuf import text_format
    model_dir = str(tmp_path / "npu")
    estimator = NPUEstimator(
        linear_model_fn(host_call_kind=None), params={"host_logdir": model_dir},
        config=NPURunConfig(model_dir=model_dir, iterations_per_loop=10))
    estimator.train(dataset_input_fn(n=512, batch=4), steps=10)
    with open(os.path.join(model_dir, "graph.pbtxt")) as f:
        written = text_format.Parse(f.read(), tf.compat.v1.GraphDef())
    metas = [event.meta_graph_def
             for path in glob.glob(os.path.join(model_dir, "events.out.tfevents.*"))
             for event in tf.compat.v1.train.summary_iterator(path)
             if event.HasField("meta_graph_def")]
    assert metas  # the checkpoint saver's record holds the same GraphDef as graph.pbtxt
    assert any(tf.compat.v1.MetaGraphDef.FromString(meta).graph_def == written for meta in metas)
    graphs = [tf.compat.v1.GraphDef.FromString(event.graph_def)
              for path in glob.glob(os.path.join(model_dir, "events.out.tfevents.*"))
              for event in tf.compat.v1.train.summary_iterator(path)
              if event.HasField("graph_def")]
    assert graphs == [written]  # one graph record, of the same GraphDef
    data = make_data(512, 0)[0].astype(np.float32).tobytes()
    assert any(node.attr["value"].tensor.tensor_content == data for node in written.node)
