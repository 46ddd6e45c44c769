"""What trains at iterations_per_loop=1 trains the same at N>1, on one rank and on two.

The matrix (``ranks/loop_matrix.py``) trains one model_fn holding a Keras
layer, batch norm update ops, summaries written in model_fn, a host_call, an
EMA applied after the step and restored in EVAL through a Scaffold's Saver, at
N=1 and N=7 for 23 steps with save_summary_steps=4, in float32 and mixed
precision, on one rank and on two; the rest of the file
checks hooks, NaN losses and scaffolds in process.
"""
import glob
import json

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn
from distributed_util import launch, run_single
from npu_bridge.device_loop.scaffolds import lift
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig
from npu_bridge.tf_private.graph import while_loop

pytestmark = pytest.mark.timeout(400)

STEPS, SUMMARY_EVERY = 23, 4  # ranks/loop_matrix.py


def _result(prefix, loop, repeat, rank):
    tag = "%s.n%d.%d.rank%d" % (prefix, loop, repeat, rank)
    with np.load(tag + ".npz") as z:
        variables = {k: z[k] for k in z.files}
    with open(tag + ".json") as f:
        return variables, json.load(f)


def _plain_summary_steps(first, last, every):
    """Steps the plain Estimator's SummarySaverHook writes at: the first step, then
    whenever the next step reaches the last written one + every."""
    steps, written = [], None
    for step in range(first, last + 1):
        if written is None or step >= written + every:
            steps.append(step)
            written = step
    return steps


def _assert_same_records(a, b):
    assert [r[:2] for r in a] == [r[:2] for r in b]
    for (tag, step, x), (_, _, y) in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6, err_msg="%s@%d" % (tag, step))


def _assert_loops_agree(prefix, rank=0, repeat=0):
    """N=1 and N=7 agree: summaries, host_call records, evaluation, variables."""
    (vars1, out1), (vars7, out7) = (_result(prefix, 1, repeat, rank),
                                    _result(prefix, 7, repeat, rank))
    summaries = out1["summaries"]
    tags = {r[0] for r in summaries}
    assert {"learning_rate_1", "logits", "inputs/image/0", "inputs/image/1", "loss_1"} <= tags
    assert sorted({r[1] for r in summaries}) == _plain_summary_steps(1, STEPS, SUMMARY_EVERY)
    _assert_same_records(summaries, out7["summaries"])
    assert [r[1] for r in out1["host"]] == list(range(1, STEPS + 1))
    _assert_same_records(out1["host"], out7["host"])  # every step's loss
    assert out1["eval"] == pytest.approx(out7["eval"], rel=1e-5)
    assert sorted(vars1) == sorted(vars7) and int(vars7["global_step"]) == STEPS
    for name in vars1:
        np.testing.assert_allclose(vars1[name], vars7[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("precision", [None, "allow_mix_precision"])
def test_one_rank_trains_the_same_at_n_1_and_7(tmp_path, precision):
    prefix = str(tmp_path / "d")
    rc, out = run_single("loop_matrix.py", prefix, tmp_path / "w", 1,
                         *([precision] if precision else []), timeout=300)
    assert rc == 0 and "LOOP_MATRIX_DONE" in out, out
    _assert_loops_agree(prefix)


def _live(prefix, loop, repeat, rank):
    with np.load("%s.n%d.%d.rank%d.live.npz" % (prefix, loop, repeat, rank)) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("precision", [None, "allow_mix_precision"])
def test_two_ranks_train_the_same_at_n_1_and_7_and_end_bitwise_equal(tmp_path, precision):
    prefix, repeats = str(tmp_path / "d"), 3
    rc, out = launch(2, "loop_matrix.py", prefix, tmp_path / "w", repeats,
                     *([precision] if precision else []), timeout=380)
    assert rc == 0 and out.count("LOOP_MATRIX_DONE") == 2, out
    assert len(glob.glob(prefix + ".*.live.npz")) == 2 * 2 * repeats
    for loop in (1, 7):
        for repeat in range(repeats):  # 6 runs: a 1-in-2 divergence shows with p = 63/64
            rank0, rank1 = (_live(prefix, loop, repeat, rank) for rank in (0, 1))
            saved, _ = _result(prefix, loop, repeat, 0)
            assert sorted(saved) == sorted(rank0)  # the checkpoint is rank 0's session
            for name in saved:
                np.testing.assert_array_equal(saved[name], rank0[name], err_msg=name)
            shared = [k for k in rank0 if "moving_" not in k]  # batch norm's stats are per rank
            assert {"keras_dense.kernel", "keras_dense.kernel.ExponentialMovingAverage",
                    "bn.gamma.ExponentialMovingAverage"} <= set(shared)
            for name in shared:
                assert np.array_equal(rank0[name], rank1[name]), (loop, repeat, name)
            assert any(not np.array_equal(rank0[k], rank1[k]) for k in rank0 if "moving_" in k)
    # Repeats after the first train() in the same processes: a rank's server keeps
    # variables between sessions, which once made EMA shadows start from the last run.
    for repeat in range(repeats):
        _assert_loops_agree(prefix, repeat=repeat)
        for name, value in _live(prefix, 7, repeat, 0).items():
            np.testing.assert_allclose(value, _live(prefix, 7, 0, 0)[name], rtol=1e-5,
                                       atol=1e-6, err_msg="repeat %d: %s" % (repeat, name))


# ---- hooks, NaN losses and scaffolds, in process ----------------------------------


def _model_fn(nan_at=None, bad=np.nan, added=False):
    def model_fn(features, labels, mode):
        global_step = tf.compat.v1.train.get_global_step()
        w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        loss = tf.identity(tf.reduce_mean(tf.square(tf.matmul(features, w) - labels)),
                           name="loss")
        if nan_at is not None and added:  # the loss only, not the gradients
            loss = loss + tf.where(tf.equal(global_step, nan_at), bad, 0.0)
        elif nan_at is not None:  # a factor, so the step's gradients read the same step
            loss = loss * tf.where(tf.equal(global_step, nan_at), bad, 1.0)
        learning_rate = tf.identity(tf.compat.v1.train.exponential_decay(
            0.05, global_step, 3, 0.8), name="learning_rate")
        train_op = tf.compat.v1.train.GradientDescentOptimizer(learning_rate).minimize(
            loss, global_step=global_step)
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


class _SeesOneStep(tf.compat.v1.train.SessionRunHook):
    """Fetches the global step, loss and learning rate with the run; reads the step after."""

    def __init__(self):
        self.fetched, self.after = [], []

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(
            [tf.compat.v1.train.get_global_step(), "loss:0", "learning_rate:0"])

    def after_run(self, run_context, run_values):
        self.fetched.append(run_values.results)
        self.after.append(int(run_context.session.run(tf.compat.v1.train.get_global_step())))


def _train(model_dir, loop, model_fn, steps, hooks=()):
    est = NPUEstimator(model_fn, config=NPURunConfig(
        model_dir=model_dir, iterations_per_loop=loop, save_checkpoints_steps=1000,
        log_step_count_steps=None))
    est.train(dataset_input_fn(), steps=steps, hooks=list(hooks))
    return est


def test_hooks_fetch_the_global_step_of_the_loss_they_see(tmp_path):
    plain, looped = _SeesOneStep(), _SeesOneStep()
    _train(str(tmp_path / "n1"), 1, _model_fn(), 25, [plain])
    _train(str(tmp_path / "n10"), 10, _model_fn(), 25, [looped])
    # N=1: the run that ended at step s computed its loss and rate at step s - 1
    # (its fetch of the variable itself races the increment, in the plain Estimator too)
    by_step = {after - 1: (loss, rate)
               for after, (_, loss, rate) in zip(plain.after, plain.fetched)}
    assert [int(r[0]) for r in looped.fetched] == [9, 19, 24]
    for step, loss, rate in looped.fetched:  # what N=1 fetched with that same step
        np.testing.assert_allclose([loss, rate], by_step[int(step)], rtol=1e-5)
    assert looped.after == [10, 20, 25] and plain.after == list(range(1, 26))


class _ReadsTheStepInItsOwnRuns(tf.compat.v1.train.SessionRunHook):
    """Runs the global step variable alone before and after each of the estimator's runs,
    tracing those runs."""

    def __init__(self):
        self.before, self.after, self.nodes = [], [], []

    def _traced_read(self, session):
        metadata = tf.compat.v1.RunMetadata()
        step = int(session.run(
            tf.compat.v1.train.get_global_step(),
            options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE),
            run_metadata=metadata))
        self.nodes.append({node.node_name for device in metadata.step_stats.dev_stats
                           for node in device.node_stats})
        return step

    def before_run(self, run_context):
        self.before.append(self._traced_read(run_context.session))

    def after_run(self, run_context, run_values):
        self.after.append(self._traced_read(run_context.session))


def test_a_hooks_own_run_of_the_global_step_reads_it_without_the_loop(tmp_path):
    """Outside the estimator's runs the variable's fetch is its plain read: the same
    value, and no loop for the session to prepare and run (seconds on a rank's server)."""
    hook = _ReadsTheStepInItsOwnRuns()
    _train(str(tmp_path), 10, _model_fn(), 25, [hook])
    assert hook.before == [0, 10, 20] and hook.after == [10, 20, 25]
    ran = set().union(*hook.nodes)
    assert any("ReadVariableOp" in name for name in ran)
    assert not [name for name in ran if "npu_loop" in name or "npu_device_loop" in name]


def test_a_nan_loss_inside_the_loop_stops_training_at_its_step(tmp_path):
    seen = {}
    for loop in (1, 100):
        hook = _SeesOneStep()
        with pytest.raises(tf.compat.v1.train.NanLossDuringTrainingError):
            _train(str(tmp_path / ("n%d" % loop)), loop, _model_fn(nan_at=12), 60, [hook])
        seen[loop] = hook.after[-1]
        assert not glob.glob(str(tmp_path / ("n%d" % loop) / "model.ckpt-1[23].index"))
    assert seen == {1: 13, 100: 13}  # the NaN step ran (as in the plain Estimator), no more


def test_an_inf_loss_trains_on_as_in_the_plain_estimator(tmp_path):
    ends = [_train(str(tmp_path / ("n%d" % loop)), loop, _model_fn(nan_at=4, bad=np.inf, added=True), 9)
            .get_variable_value("global_step") for loop in (1, 7)]
    assert ends == [9, 9]


def test_scaffold_built_in_model_fn_is_honoured_in_the_loop(tmp_path):
    calls = []

    def model_fn(features, labels, mode):
        spec = _model_fn()(features, labels, mode)
        counter = tf.compat.v1.get_variable(
            "counter", [], initializer=tf.constant_initializer(0.0), trainable=False,
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
        with tf.control_dependencies([tf.compat.v1.local_variables_initializer()]):
            local_init_op = counter.assign(5.0)
        scaffold = tf.compat.v1.train.Scaffold(
            saver=tf.compat.v1.train.Saver(max_to_keep=2),
            init_fn=lambda scaffold, session: calls.append((mode, scaffold.saver is not None)),
            local_init_op=local_init_op)
        if mode == tf.estimator.ModeKeys.EVAL:
            return NPUEstimatorSpec(mode, loss=spec.loss, scaffold=scaffold,
                                    eval_metric_ops={"counter": tf.compat.v1.metrics.mean(counter)})
        return spec._replace(scaffold=scaffold)

    est = _train(str(tmp_path), 7, model_fn, 15)
    for _ in range(3):
        est.train(dataset_input_fn(), steps=7)
    assert len(glob.glob(str(tmp_path / "model.ckpt-*.index"))) == 2  # the scaffold's max_to_keep
    metrics = est.evaluate(dataset_input_fn(), steps=9)
    assert metrics["counter"] == 5.0 and metrics["global_step"] == 36
    assert calls == [("train", True)]  # init_fn runs when nothing is restored, as in TF


def test_a_lifted_local_init_op_runs_after_the_local_initialisers_it_waited_on():
    """In the body, ``assign`` waited for local_variables_initializer(); its copy outside
    must too (grouped beside the initialiser, the two ran in either order and the
    counter sometimes ended at 0)."""
    with tf.Graph().as_default() as graph:
        built = {}

        def body(left):
            counter = tf.compat.v1.get_variable(
                "counter", [], initializer=tf.constant_initializer(0.0), trainable=False,
                collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES], use_resource=True)
            with tf.control_dependencies([tf.compat.v1.local_variables_initializer()]):
                built["assign"] = counter.assign(5.0, read_value=False)
            built["counter"] = counter
            return left - 1

        while_loop(lambda left: left > 0, body, [tf.constant(1)])
        lifted = lift(built["assign"], graph, tf.compat.v1.GraphKeys.LOCAL_VARIABLES)
        initialiser = built["counter"].initializer
        assert initialiser in lifted.control_inputs
        with tf.compat.v1.Session() as session:
            for _ in range(20):  # each run: the initialiser, then the copy
                session.run(lifted)
                assert session.run(built["counter"].read_value()) == 5.0
