"""The input iterator starts in the session's local init run when its pipeline reads no
state; a pipeline reading a table keeps its own run after the session is prepared."""

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.device_loop.builder import ProgramBuilder
from npu_bridge.device_loop.input_start import InputStartingScaffold
from npu_bridge.device_loop.plan import plan_training
from npu_bridge.device_loop.read_order import ancestors
from npu_bridge.npu_init import NPUEstimator, NPURunConfig, NPUEstimatorSpec
from npu_bridge.tf_private import estimator as estimator_lib

LR = 0.1
TABLE = {"a": 3.0, "b": 5.0}  # the batch's mean is 4.0


def _table_input_fn():
    """A pipeline whose elements are looked up in a table as the iterator starts:
    it fails unless the table (initialised by the default local init op) is ready."""
    keys = tf.constant(sorted(TABLE))
    table = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(keys, tf.constant([TABLE[k] for k in sorted(TABLE)])),
        default_value=-100.0)
    values = table.lookup(keys)
    return tf.data.Dataset.from_tensor_slices((values, values)).repeat().batch(2)


def _constant_input_fn():
    """A pipeline of constants, tf.data's own state (a seeded shuffle, a cache) and a map:
    each batch holds the two values once, so its mean is 4.0 whatever the order."""
    values = np.array([TABLE[k] for k in sorted(TABLE)], np.float32)
    return (tf.data.Dataset.from_tensor_slices((values, values)).shuffle(2, seed=1).cache()
            .map(lambda x, y: (x * 1.0, y)).repeat().batch(2))


INPUTS = {"table": _table_input_fn, "constant": _constant_input_fn}


def _model_fn(offset_in_local_init=None):
    """w moves toward mean(x) (+ a local variable set by model_fn's own local init op)."""

    def model_fn(features, labels, mode):
        del labels
        w = tf.compat.v1.get_variable("w", [], initializer=tf.zeros_initializer())
        target = tf.reduce_mean(features)
        scaffold = None
        if offset_in_local_init is not None:
            offset = tf.compat.v1.get_local_variable(
                "offset", [], initializer=tf.zeros_initializer())
            target += offset
            initialised = tf.group(tf.compat.v1.local_variables_initializer(),
                                   tf.compat.v1.tables_initializer())
            with tf.control_dependencies([initialised]):
                scaffold = tf.compat.v1.train.Scaffold(
                    local_init_op=offset.assign(offset_in_local_init).op)
        loss = tf.square(w - target)
        if mode == tf.estimator.ModeKeys.EVAL:
            return NPUEstimatorSpec(mode, loss=loss, scaffold=scaffold,
                                    eval_metric_ops={"target": tf.compat.v1.metrics.mean(target)})
        train_op = tf.compat.v1.train.GradientDescentOptimizer(LR).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)

    return model_fn


def _w_after(steps, target):
    w = 0.0
    for _ in range(steps):
        w -= LR * 2.0 * (w - target)
    return w


@pytest.mark.parametrize("input_name", sorted(INPUTS))
@pytest.mark.parametrize("iterations", [1, 5])
def test_both_kinds_of_pipeline_train_and_evaluate_exactly_over_two_sessions(
        tmp_path, iterations, input_name):
    input_fn = INPUTS[input_name]
    est = NPUEstimator(_model_fn(), config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=iterations, save_checkpoints_steps=100))
    est.train(input_fn, steps=5)
    assert tf.train.load_variable(str(tmp_path), "global_step") == 5
    assert tf.train.load_variable(str(tmp_path), "w") == pytest.approx(_w_after(5, 4.0), rel=1e-6)
    est.train(input_fn, steps=5)  # a second session, restored, starts its input again
    assert tf.train.load_variable(str(tmp_path), "w") == pytest.approx(_w_after(10, 4.0), rel=1e-6)
    metrics = est.evaluate(input_fn, steps=3)
    assert metrics["target"] == pytest.approx(4.0)
    assert metrics["global_step"] == 10


@pytest.mark.parametrize("iterations", [1, 5])
def test_model_fns_own_local_init_op_runs_and_the_input_starts_after_it(tmp_path, iterations):
    est = NPUEstimator(_model_fn(offset_in_local_init=1.0), config=NPURunConfig(
        model_dir=str(tmp_path), iterations_per_loop=iterations, save_checkpoints_steps=100))
    est.train(_constant_input_fn, steps=5)
    assert tf.train.load_variable(str(tmp_path), "w") == pytest.approx(_w_after(5, 5.0), rel=1e-6)
    metrics = est.evaluate(_constant_input_fn, steps=2)
    assert metrics["target"] == pytest.approx(5.0)


def _program(input_fn, iterations=5):
    config = NPURunConfig(iterations_per_loop=iterations)
    tf.compat.v1.train.get_or_create_global_step()
    builder = ProgramBuilder(lambda f, l, m: _model_fn()(f, l, m),
                             plan_training(config, 5, None))
    return builder.train(input_fn())


def _initialiser_hooks(program):
    return [h for h in program.hooks if isinstance(h, estimator_lib.DatasetInitializerHook)]


@pytest.mark.parametrize("iterations", [1, 5])
def test_a_stateless_pipeline_is_started_by_the_local_init_run_after_what_it_initialises(
        iterations):
    with tf.Graph().as_default() as graph:
        program = _program(_constant_input_fn, iterations)
        assert not _initialiser_hooks(program)
        assert isinstance(program.scaffold, InputStartingScaffold)
        assert program.spec.scaffold is program.scaffold  # the one the session is given
        program.scaffold.finalize()
        assert graph.finalized
        local_init = program.scaffold.local_init_op
        starts = [op for op in ancestors([local_init]) if op.type == "MakeIterator"
                  and op.name.startswith("npu_input_start")]
        assert len(starts) == 1
        # it waits for the local init op Scaffold.finalize resolved (the default here)
        resolved = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOCAL_INIT_OP)
        assert len(resolved) == 1 and starts[0].control_inputs == [resolved[0]]
        assert set(v.initializer for v in tf.compat.v1.local_variables()) <= ancestors(resolved)
        # finalising again (MonitoredSession and the session creator both do) adds nothing
        program.scaffold.finalize()
        assert program.scaffold.local_init_op is local_init


def test_a_pipeline_reading_a_table_keeps_its_own_run_after_the_session_is_prepared():
    with tf.Graph().as_default():
        program = _program(_table_input_fn)
        assert len(_initialiser_hooks(program)) == 1
        assert not isinstance(program.scaffold, InputStartingScaffold)
