"""Session helpers and documented no-ops, imported as migrated scripts import them (one process)."""
import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.npu_init import (
    MemoryConfig, NpuEmptyHook, SetIterationsVarHook, close_session, get_local_rank_id,
    get_npu_local_rank_size, get_npu_rank_id, get_npu_rank_size, get_rank_size, init_resource,
    npu_callbacks_append, npu_distributed_optimizer_wrapper, npu_strategy, shutdown_resource,
    util)


def _is_npu_config(config):
    names = [c.name for c in config.graph_options.rewrite_options.custom_optimizers]
    return names == ["NpuOptimizer"]


def test_session_resources_give_working_npu_sessions():
    with tf.Graph().as_default():
        v = tf.Variable(3.0)
        sess, shutdown = init_resource()
        assert _is_npu_config(sess._config)  # pylint: disable=protected-access
        sess.run(v.initializer)
        assert sess.run(v * 2) == 6.0
        shutdown_resource(sess, shutdown)
        close_session(sess)
        with pytest.raises(RuntimeError, match="closed"):
            sess.run(v)


_KERAS_SCRIPT = """
import numpy as np
from npu_bridge.npu_init import *
import tensorflow as tf
tf.compat.v1.disable_eager_execution()
config = tf.compat.v1.ConfigProto()
custom = config.graph_options.rewrite_options.custom_optimizers.add()
custom.name = "NpuOptimizer"
custom.parameter_map["precision_mode"].s = b"must_keep_origin_dtype"
sess = set_keras_session_npu_config(config)
assert tf.compat.v1.keras.backend.get_session() is sess
assert read_npu_optimizer_options(sess._config)["precision_mode"] == "must_keep_origin_dtype"
fresh = npu_clear_session()
assert fresh is not sess and tf.compat.v1.keras.backend.get_session() is fresh
assert [c.name for c in fresh._config.graph_options.rewrite_options.custom_optimizers] == [
    "NpuOptimizer"]
model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
model.compile(npu_keras_optimizer(tf.keras.optimizers.legacy.SGD(0.1)), "mse")
history = model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0,
                    callbacks=npu_callbacks_append([]))
print("KERAS_SESSION_OK", len(history.history["loss"]))
"""


def test_keras_session_helpers_set_the_backend_session():
    """In a process of its own: graph-mode Keras needs disable_eager_execution at start."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _KERAS_SCRIPT], text=True,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "KERAS_SESSION_OK 2" in proc.stdout


def test_rank_queries_and_no_ops_single_process():
    assert (get_rank_size(), get_local_rank_id(), get_npu_rank_id(), get_npu_rank_size(),
            get_npu_local_rank_size()) == (1, 0, 0, 1, 1)
    assert npu_callbacks_append([]) == []  # the callback only matters with ranks
    assert isinstance(NpuEmptyHook(), tf.compat.v1.train.SessionRunHook)
    with pytest.raises(ValueError, match="positive int"):
        SetIterationsVarHook(0)
    with pytest.raises(ValueError, match="atomic_clean_policy"):
        MemoryConfig(atomic_clean_policy=3)
    assert MemoryConfig(1).atomic_clean_policy == 1
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        assert util.set_graph_exec_config(loss, dynamic_input=True) is loss
    assert npu_strategy.NPUStrategy() is tf.distribute.get_strategy()
    opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    assert npu_distributed_optimizer_wrapper(opt) is opt
    with pytest.raises(TypeError, match="optimizer"):
        npu_distributed_optimizer_wrapper(3)


def test_ai_cpu_kernels_and_convert_dropout_import():
    import npu_bridge.estimator.npu.npu_convert_dropout  # noqa: F401  (changes nothing)
    from npu_bridge.npu_cpu import npu_cpu_ops
    with pytest.raises(NotImplementedError, match="npu_cpu_ops.embeddingrankid"):
        npu_cpu_ops.embeddingrankid


def test_randomchoicewithmask_samples_true_positions_without_repeats():
    from npu_bridge.npu_cpu import npu_cpu_ops
    x = np.zeros((4, 5), bool)
    x[[0, 1, 1, 3, 3, 3], [2, 0, 4, 1, 3, 4]] = True  # 6 True positions
    with tf.Graph().as_default():
        few_index, few_mask = npu_cpu_ops.randomchoicewithmask(x=x, count=4, seed=1, seed2=2)
        all_index, all_mask = npu_cpu_ops.randomchoicewithmask(x=x, count=9)
        again = npu_cpu_ops.randomchoicewithmask(x=x, count=4, seed=1, seed2=2)[0]
        assert few_index.shape == (4, 2) and few_mask.shape == (4,)
        with tf.compat.v1.Session() as sess:
            draws = [sess.run([few_index, few_mask]) for _ in range(20)]
            index, mask, repeated = sess.run([all_index, all_mask, again])
    true_positions = set(zip(*np.nonzero(x)))
    for index_rows, mask_rows in draws:
        rows = [tuple(r) for r in index_rows]
        assert mask_rows.all() and len(set(rows)) == 4 and set(rows) <= true_positions
    assert len({tuple(map(tuple, d[0])) for d in draws}) > 1  # a new draw each run
    # More asked than there are: all 6, each once, then zero rows the mask marks False.
    assert mask.tolist() == [True] * 6 + [False] * 3
    assert {tuple(r) for r in index[:6]} == true_positions and not index[6:].any()
    assert repeated.shape == (4, 2)
    with pytest.raises(ValueError, match="randomchoicewithmask count must be a positive int"):
        npu_cpu_ops.randomchoicewithmask(x=x, count=0)
