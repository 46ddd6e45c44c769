"""A checkpoint save through the run prepared as the session starts writes what Saver.save writes."""

import os

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.core.prepared_save import PreparedSave


def _session_graph():
    graph = tf.Graph()
    with graph.as_default():
        weights = tf.compat.v1.get_variable(
            "weights", initializer=np.arange(6, dtype=np.float32).reshape(3, 2))
        bump = weights.assign_add(tf.ones([3, 2]))
        saver = tf.compat.v1.train.Saver()
        init = tf.compat.v1.global_variables_initializer()
        graph.finalize()
    session = tf.compat.v1.Session(graph=graph)
    session.run(init)
    return session, saver, weights, bump


def _values(path):
    reader = tf.train.load_checkpoint(path)
    return reader.get_tensor("weights")


def test_save_through_the_prepared_run_is_the_savers_own(tmp_path):
    session, saver, weights, bump = _session_graph()
    prepared = PreparedSave(session, saver.saver_def)
    with session:
        through = prepared.session_for(session)
        assert through is not session and prepared.run is not None  # the callable is used
        session.run(bump)
        ours = saver.save(through, str(tmp_path / "ours" / "model.ckpt"), global_step=1)
        stock = saver.save(session, str(tmp_path / "stock" / "model.ckpt"), global_step=1)
        assert through.run(weights).tolist() == session.run(weights).tolist()  # other runs: as is
    assert ours == str(tmp_path / "ours" / "model.ckpt-1")
    np.testing.assert_array_equal(_values(ours), _values(stock))
    np.testing.assert_array_equal(_values(ours), np.arange(6).reshape(3, 2) + 1)
    assert tf.train.latest_checkpoint(str(tmp_path / "ours")) == ours
    assert os.path.exists(ours + ".meta")  # Saver.save's own .meta, as asked


def test_errors_are_the_savers_and_other_sessions_go_their_own_way(tmp_path):
    session, saver, _, _ = _session_graph()
    prepared = PreparedSave(session, saver.saver_def)
    other, _, _, _ = _session_graph()
    assert prepared.session_for(other) is other
    with session:
        through = prepared.session_for(session)
        with pytest.raises(ValueError, match="Parent directory"):  # as Saver.save on a Session
            saver.save(through, str(tmp_path / "missing" / "deeper" / "model.ckpt"),
                       write_meta_graph=False)
    assert prepared.session_for(session) is session  # closed: nothing prepared is used
    other.close()
