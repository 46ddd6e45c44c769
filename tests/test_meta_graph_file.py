"""Checkpoints' .meta files prepared once per session are the ones the stock Saver writes."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn
from npu_bridge.core.meta_graph_file import PreparedMetaGraph, meta_graph_path
from npu_bridge.npu_init import NPUEstimator, NPURunConfig


def _session_graph(sharded):
    """A finalised graph with variables, a collection of our own, its saver and a session."""
    graph = tf.Graph()
    with graph.as_default():
        weights = tf.compat.v1.get_variable("weights", [3, 2])
        step = tf.compat.v1.train.get_or_create_global_step()
        tf.compat.v1.add_to_collection("mine", weights)
        saver = tf.compat.v1.train.Saver(sharded=sharded)
        init = tf.compat.v1.global_variables_initializer()
        graph.finalize()
    session = tf.compat.v1.Session(graph=graph)
    session.run(init)
    return graph, saver, session, step


def _stock_meta(saver, session, directory, step):
    os.makedirs(directory, exist_ok=True)
    path = saver.save(session, os.path.join(directory, "model.ckpt"), global_step=step)
    return open(meta_graph_path(path), "rb").read()


@pytest.mark.parametrize("sharded,given_graph_def", [(False, False), (True, False),
                                                     (False, True)])
def test_prepared_meta_file_has_the_bytes_the_stock_save_writes(tmp_path, sharded,
                                                                given_graph_def):
    graph, saver, session, _ = _session_graph(sharded)
    assert PreparedMetaGraph.usable(saver, graph)
    # the checkpoint saver passes the GraphDef it made as the session started
    graph_def = graph.as_graph_def(add_shapes=True) if given_graph_def else None
    prepared = PreparedMetaGraph(saver, graph, graph_def)
    (tmp_path / "ours").mkdir()  # a sharded Saver does not make it
    with session:
        path = saver.save(session, str(tmp_path / "ours" / "model.ckpt"), global_step=7,
                          write_meta_graph=False)
        assert not os.path.exists(meta_graph_path(path))
        written = prepared.write(path)
        assert written == str(tmp_path / "ours" / "model.ckpt-7.meta")
        stock = _stock_meta(saver, session, str(tmp_path / "stock"), 7)
    assert open(written, "rb").read() == stock
    meta = tf.compat.v1.MetaGraphDef()
    meta.ParseFromString(stock)
    assert "mine" in meta.collection_def and meta.saver_def == saver.saver_def
    assert not glob.glob(str(tmp_path / "ours" / "*.tmp*"))  # the temporary file was renamed


def test_a_collection_changed_after_preparing_is_in_the_file(tmp_path):
    graph, saver, session, _ = _session_graph(sharded=False)
    prepared = PreparedMetaGraph(saver, graph)
    # add_to_collection refuses a finalised graph; a collection's list can still change
    graph.get_collection_ref("added_during_training").append(graph.get_tensor_by_name("weights:0"))
    graph.get_collection_ref("mine").clear()
    with session:
        path = saver.save(session, str(tmp_path / "ours" / "model.ckpt"), global_step=1,
                          write_meta_graph=False)
        ours = open(prepared.write(path), "rb").read()
        stock = _stock_meta(saver, session, str(tmp_path / "stock"), 1)
    assert ours == stock
    meta = tf.compat.v1.MetaGraphDef()
    meta.ParseFromString(ours)
    assert "added_during_training" in meta.collection_def and "mine" not in meta.collection_def


def test_unfinalised_graphs_and_other_savers_are_left_to_the_stock_save():
    with tf.Graph().as_default() as graph:
        tf.compat.v1.get_variable("v", [1])
        saver = tf.compat.v1.train.Saver()
        assert not PreparedMetaGraph.usable(saver, graph)  # not finalised
        graph.finalize()
        assert PreparedMetaGraph.usable(saver, graph)
        assert not PreparedMetaGraph.usable(object(), graph)


def test_every_checkpoint_of_a_call_restores_through_its_meta_file(tmp_path):
    """What a user does with a .meta: import the graph, restore the checkpoint into it."""
    model_dir = str(tmp_path / "npu")
    estimator = NPUEstimator(
        linear_model_fn(host_call_kind=None), params={"host_logdir": model_dir},
        config=NPURunConfig(model_dir=model_dir, iterations_per_loop=5,
                            save_checkpoints_steps=5, keep_checkpoint_max=10))
    estimator.train(dataset_input_fn(batch=4), steps=12)
    estimator.train(dataset_input_fn(batch=4), steps=5)
    checkpoints = tf.train.get_checkpoint_state(model_dir).all_model_checkpoint_paths
    steps = sorted(int(path.rsplit("-", 1)[1]) for path in checkpoints)
    assert steps == [0, 5, 10, 12, 17]
    for path in checkpoints:
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
            saver = tf.compat.v1.train.import_meta_graph(path + ".meta")
            saver.restore(session, path)
            step = session.run(tf.compat.v1.train.get_global_step(graph))
            assert step == int(path.rsplit("-", 1)[1])
            weights = [v for v in tf.compat.v1.global_variables() if v.op.name == "w"]
            assert len(weights) == 1
            np.testing.assert_array_equal(session.run(weights[0]),
                                          tf.train.load_variable(path, "w"))
