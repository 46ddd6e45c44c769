"""NPUOutputTensorHook hands output_fn the exact per-step values; checkpoint hook saves."""

import os

import tensorflow as tf

from npu_bridge.estimator.npu.npu_hook import NPUCheckpointSaverHook, NPUOutputTensorHook

tf.compat.v1.disable_eager_execution()


def _counter_graph():
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        total = tf.compat.v1.get_variable("total", initializer=0.0, use_resource=True)
        train_op = tf.group(step.assign_add(1), total.assign_add(2.5))
    return graph, step, total, train_op


def _train(graph, train_op, hooks, steps):
    with graph.as_default():
        with tf.compat.v1.train.MonitoredSession(hooks=hooks) as sess:
            for _ in range(steps):
                sess.run(train_op)


def test_output_fn_gets_every_step_in_batches_of_n():
    graph, step, total, train_op = _counter_graph()
    calls = []
    with graph.as_default():
        hook = NPUOutputTensorHook({"step": step, "total": total},
                                   dependencies=[train_op], output_fn=calls.append,
                                   output_every_n_steps=3)
    _train(graph, train_op, [hook], steps=7)
    # Values read after this step's train_op (the dependency): steps 1..7.
    assert [[(d["step"], d["total"]) for d in batch] for batch in calls] == [
        [(1, 2.5), (2, 5.0), (3, 7.5)],
        [(4, 10.0), (5, 12.5), (6, 15.0)],
        [(7, 17.5)],
    ]


def test_list_of_names_and_only_at_end():
    graph, step, total, train_op = _counter_graph()
    calls = []
    with graph.as_default():
        doubled = tf.multiply(tf.cast(step, tf.float32), 2.0, name="doubled")
    hook = NPUOutputTensorHook(["doubled:0"], output_fn=calls.append)
    _train(graph, train_op, [hook], steps=4)
    assert len(calls) == 1
    # Without dependencies the read may precede or follow the update, but the
    # value is always 2 * (a step count in the right range), in order.
    values = [d["doubled:0"] for d in calls[0]]
    assert len(values) == 4 and values == sorted(values)
    assert all(v % 2 == 0 and 0 <= v <= 8 for v in values)
    del doubled


def test_checkpoint_saver_hook_saves_on_schedule(tmp_path):
    graph, step, total, train_op = _counter_graph()
    with graph.as_default():
        hook = NPUCheckpointSaverHook(str(tmp_path), save_steps=2)
    _train(graph, train_op, [hook], steps=5)
    state = tf.train.get_checkpoint_state(str(tmp_path))
    saved = sorted(int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths)
    assert saved == [0, 2, 4, 5]
    assert os.path.basename(state.model_checkpoint_path) == "model.ckpt-5"
    reader = tf.train.load_checkpoint(state.model_checkpoint_path)
    assert reader.get_tensor("total") == 12.5
    assert isinstance(hook, tf.compat.v1.train.CheckpointSaverHook)
