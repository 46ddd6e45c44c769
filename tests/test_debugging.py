"""DumpConfig and ProfilingConfig on CPU: op dumps, overflow detection, compare, profiles."""

import glob
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from conftest import FEATURES, make_data
from npu_bridge.core.config import ASCEND_ONLY_DEFAULTS
from npu_bridge.debugging import compare
from npu_bridge.debugging.capture import op_name
from npu_bridge.debugging.estimator_hooks import single_steps, training_hooks
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.device_loop import plan
from npu_bridge.npu_init import DumpConfig, NPUEstimator, NPURunConfig, ProfilingConfig

BATCH = 4


class RecordHook(tf.compat.v1.train.SessionRunHook):
    """Fetches tensors every run and keeps their values (what the model computed)."""

    def __init__(self, tensors, store):
        self._tensors = tensors
        self._store = store

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._tensors)

    def after_run(self, run_context, run_values):
        self._store.append(run_values.results)


def two_layer_model_fn(records, w2_init=0.5, planted_sqrt=False):
    def model_fn(features, labels, mode):
        w1 = tf.compat.v1.get_variable(
            "w1", [FEATURES, 3], initializer=tf.compat.v1.constant_initializer(0.1))
        w2 = tf.compat.v1.get_variable(
            "w2", [3, 1], initializer=tf.compat.v1.constant_initializer(w2_init))
        inputs = tf.sqrt(features, name="planted_sqrt") if planted_sqrt else features
        hidden = tf.nn.relu(tf.matmul(inputs, w1, name="layer1"), name="hidden")
        pred = tf.matmul(hidden, w2, name="layer2")
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"pred": pred})
        loss = tf.reduce_mean(tf.square(pred - labels), name="mse")
        hook = RecordHook({"hidden": hidden, "pred": pred, "loss": loss}, records)
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss, evaluation_hooks=[hook])
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          training_hooks=[hook])
    return model_fn


def input_fn_for(x, y):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH, drop_remainder=True)
    return input_fn


def train(model_dir, steps, iterations=1, data=None, **model_args):
    """Trains the two-layer model; returns the per-run fetched values."""
    records = []
    x, y = data if data is not None else make_data(64)
    config_args = {k: model_args.pop(k) for k in list(model_args)
                   if k in ("dump_config", "profiling_config", "enable_exception_dump")}
    config = NPURunConfig(model_dir=model_dir, iterations_per_loop=iterations,
                          save_checkpoints_steps=1000, log_step_count_steps=None,
                          **config_args)
    NPUEstimator(two_layer_model_fn(records, **model_args), config=config).train(
        input_fn_for(x, y), steps=steps)
    return records


def load(step_dir):
    with open(os.path.join(step_dir, "index.json")) as f:
        index = json.load(f)
    return index, {op["name"]: op for op in index["ops"]}


def tensor(step_dir, op, kind):
    return np.load(os.path.join(step_dir, *op.split("/"), kind + ".npy"))


# ---- step syntax, config and cost when off ----------------------------------

def test_step_ranges_follow_the_original_syntax():
    steps = StepRanges("0|5|10-20")
    assert [s for s in range(25) if s in steps] == [0, 5] + list(range(10, 21))
    assert steps.next_at_or_after(6) == 10 and steps.next_at_or_after(21) is None
    # A run of 100 from step 1 stops before step 5; step 5 runs alone.
    assert [steps.run_size(100, s) for s in (1, 5, 6, 21)] == [4, 1, 4, 100]
    assert plan.next_run_size(100, 1, None, 100, [steps]) == 4
    assert 123 in StepRanges(None)
    for bad in ("1,2", "5-3", "a", ""):
        with pytest.raises(ValueError, match="dump_step"):
            DumpConfig(enable_dump=True, dump_step=bad)
    with pytest.raises(ValueError, match="profiling_options must be JSON"):
        ProfilingConfig(True, "{training_trace: on}")


def test_debug_options_have_meaning_and_cost_nothing_when_off(tmp_path):
    for name in ("dump_config", "profiling_config", "enable_exception_dump"):
        assert name not in ASCEND_ONLY_DEFAULTS
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        assert training_hooks(NPURunConfig(), str(tmp_path)) == []
        assert training_hooks(NPURunConfig(dump_config=DumpConfig()), str(tmp_path)) == []
        assert single_steps(NPURunConfig(dump_config=DumpConfig())) is None
        hooks = training_hooks(NPURunConfig(enable_exception_dump=1), str(tmp_path))
        assert [type(h).__name__ for h in hooks] == ["OverflowHook"]
        assert single_steps(NPURunConfig(enable_exception_dump=1)).every_step
    plain = NPURunConfig()
    assert plain.session_config is None or not plain.session_config.graph_options.rewrite_options.remapping
    dumping = NPURunConfig(dump_config=DumpConfig(enable_dump=True))
    assert dumping.session_config.graph_options.rewrite_options.remapping == 2  # OFF
    assert dumping.ascend_option("dump_config") is dumping.dump_config


# ---- op dumps ----------------------------------------------------------------

@pytest.fixture(scope="module")
def reference_dump(tmp_path_factory):
    """N=1 run dumping steps 0 and 3, and the values each run fetched."""
    root = tmp_path_factory.mktemp("reference")
    dump_path = str(root / "dump")
    records = train(str(root / "model"), 5, dump_config=DumpConfig(
        enable_dump=True, dump_path=dump_path, dump_step="0|3"))
    return dump_path, records


def test_dumped_values_equal_what_the_model_computed(reference_dump):
    dump_path, records = reference_dump
    assert sorted(os.listdir(dump_path)) == ["step_0", "step_3"]
    x, _ = make_data(64)
    for step in (0, 3):
        step_dir = os.path.join(dump_path, "step_%d" % step)
        index, ops = load(step_dir)
        assert index["step"] == step and index["dump_mode"] == "output"
        for name in ("hidden", "layer2", "mse"):
            fetched = records[step][{"hidden": "hidden", "layer2": "pred", "mse": "loss"}[name]]
            np.testing.assert_allclose(tensor(step_dir, name, "output_0"), fetched, rtol=1e-6)
            entry = ops[name]["tensors"][0]
            assert entry["shape"] == list(np.shape(fetched)) and entry["dtype"] == "float32"
        assert ops["layer1"]["type"].endswith("MatMul") and ops["hidden"]["type"] == "Relu"
        # Execution order: the forward pass before the loss before the weight update.
        order = {name: op["order"] for name, op in ops.items()}
        assert order["layer1"] < order["hidden"] < order["layer2"] < order["mse"]
        assert any(name.startswith("gradients/") for name in ops)
    # The batch that fed step 3 is the fourth batch of the data.
    step3 = os.path.join(dump_path, "step_3")
    input_op = next(name for name, op in load(step3)[1].items()
                    if op["type"] == "IteratorGetNext")
    np.testing.assert_array_equal(tensor(step3, input_op, "output_0"), x[12:16])


def test_device_loop_dumps_a_step_as_its_own_run_with_the_same_names(reference_dump, tmp_path):
    dump_path, records = reference_dump
    looped_path = str(tmp_path / "dump")
    looped = train(str(tmp_path / "model"), 8, iterations=4, dump_config=DumpConfig(
        enable_dump=True, dump_path=looped_path, dump_step="3"))
    # Runs: steps 0-2, step 3 alone, steps 4-7.
    np.testing.assert_allclose(looped[1]["loss"], records[3]["loss"], rtol=1e-6)
    assert len(looped) == 3
    step_dir = os.path.join(looped_path, "step_3")
    for name in ("hidden", "layer2", "mse"):
        np.testing.assert_allclose(tensor(step_dir, name, "output_0"),
                                   tensor(os.path.join(dump_path, "step_3"), name, "output_0"),
                                   rtol=1e-6)


@pytest.mark.parametrize("mode", ["input", "output", "all"])
def test_dump_mode_selects_inputs_outputs_or_both(mode, tmp_path):
    dump_path = str(tmp_path / "dump")
    records = train(str(tmp_path / "model"), 2, dump_config=DumpConfig(
        enable_dump=True, dump_path=dump_path, dump_step="1", dump_mode=mode))
    step_dir = os.path.join(dump_path, "step_1")
    index, ops = load(step_dir)
    kinds = {t["kind"].split("_")[0] for op in index["ops"] for t in op["tensors"]}
    assert kinds == {"input": {"input"}, "output": {"output"}, "all": {"input", "output"}}[mode]
    files = {os.path.relpath(p, step_dir) for p in glob.glob(step_dir + "/**/*.npy", recursive=True)}
    assert files == {t["file"] for op in index["ops"] for t in op["tensors"]}
    if mode != "output":
        # layer2's inputs are the hidden activations and w2's value at step 1.
        np.testing.assert_allclose(tensor(step_dir, "layer2", "input_0"),
                                   records[1]["hidden"], rtol=1e-6)
        assert tensor(step_dir, "layer2", "input_1").shape == (3, 1)
        sources = {t["kind"]: t.get("from") for t in ops["layer2"]["tensors"]}
        assert sources["input_0"] == "hidden:0"


def test_evaluate_and_predict_dump_the_batches_they_name(tmp_path):
    model_dir, dump_path = str(tmp_path / "model"), str(tmp_path / "dump")
    x, y = make_data(64)
    train(model_dir, 1)  # a checkpoint to evaluate
    records = []
    config = NPURunConfig(model_dir=model_dir, iterations_per_loop=4, log_step_count_steps=None,
                          dump_config=DumpConfig(enable_dump=True, dump_path=dump_path,
                                                 dump_step="1|4"))
    estimator = NPUEstimator(two_layer_model_fn(records), config=config)
    estimator.evaluate(input_fn_for(x, y), steps=6)
    assert os.listdir(dump_path) == ["evaluate"]
    assert sorted(os.listdir(os.path.join(dump_path, "evaluate"))) == ["step_1", "step_4"]
    # Eval loop runs: batch 0, batch 1 alone, batches 2-3, batch 4 alone, batch 5.
    assert len(records) == 5
    for step, run in ((1, 1), (4, 3)):
        step_dir = os.path.join(dump_path, "evaluate", "step_%d" % step)
        index, ops = load(step_dir)
        assert index["step"] == step
        for name, key in (("hidden", "hidden"), ("layer2", "pred"), ("mse", "loss")):
            np.testing.assert_allclose(tensor(step_dir, name, "output_0"), records[run][key],
                                       rtol=1e-6)
        batch = next(n for n, op in ops.items() if op["type"] == "IteratorGetNext")
        np.testing.assert_array_equal(tensor(step_dir, batch, "output_0"),
                                      x[BATCH * step:BATCH * (step + 1)])
    predictions = list(estimator.predict(
        lambda: tf.data.Dataset.from_tensor_slices(x[:6 * BATCH]).batch(BATCH),
        yield_single_examples=False))
    assert sorted(os.listdir(os.path.join(dump_path, "predict"))) == ["step_1", "step_4"]
    for step in (1, 4):
        step_dir = os.path.join(dump_path, "predict", "step_%d" % step)
        np.testing.assert_allclose(tensor(step_dir, "layer2", "output_0"),
                                   predictions[step]["pred"], rtol=1e-6)
    # Overflow detection in evaluate(): a NaN planted in batch 2 is named there.
    x[2 * BATCH + 1, 2] = -1.0
    checking = NPURunConfig(model_dir=model_dir, iterations_per_loop=4, dump_config=DumpConfig(
        enable_dump_debug=True, dump_step="0-2"))  # later batches read the metric's NaN total
    NPUEstimator(two_layer_model_fn([], planted_sqrt=True), config=checking).evaluate(
        input_fn_for(x, y), steps=4)
    reports = glob.glob(os.path.join(model_dir, "npu_dump", "evaluate", "overflow", "*",
                                     "overflow.json"))  # the default dump_path
    assert [json.load(open(r))["op"] for r in reports] == ["planted_sqrt"]
    assert json.load(open(reports[0]))["step"] == 2


# ---- overflow ----------------------------------------------------------------

def test_a_planted_nan_is_named_at_its_op_and_step(tmp_path):
    x, y = make_data(64)
    x[2 * BATCH + 1, 2] = -1.0  # sqrt(-1) in step 2's batch
    dump_path = str(tmp_path / "dump")
    # The Estimator's NanTensorHook stops training after the overflow hook has reported.
    with pytest.raises(tf.compat.v1.train.NanLossDuringTrainingError):
        train(str(tmp_path / "model"), 4, iterations=4, data=(x, y), planted_sqrt=True,
              dump_config=DumpConfig(enable_dump_debug=True, dump_path=dump_path))
    reports = glob.glob(os.path.join(dump_path, "overflow", "step_*", "overflow.json"))
    assert len(reports) == 1
    report = json.load(open(reports[0]))
    assert (report["step"], report["op"], report["type"]) == (2, "planted_sqrt", "Sqrt")
    kept = os.path.dirname(reports[0])
    np.testing.assert_array_equal(tensor(kept, "planted_sqrt", "input_0"), x[8:12])
    assert np.isnan(tensor(kept, "planted_sqrt", "output_0")[1, 2])
    assert not np.isnan(np.delete(tensor(kept, "planted_sqrt", "output_0").ravel(), 6)).any()


# ---- compare -----------------------------------------------------------------

def test_compare_finds_a_perturbed_weight_at_the_first_op_it_reaches(reference_dump, tmp_path):
    dump_path, _ = reference_dump
    perturbed_path = str(tmp_path / "dump")
    train(str(tmp_path / "model"), 1, w2_init=0.51, dump_config=DumpConfig(
        enable_dump=True, dump_path=perturbed_path, dump_step="0"))
    rows, first = compare.compare_steps(os.path.join(dump_path, "step_0"),
                                        os.path.join(perturbed_path, "step_0"))
    by_op = {row["op"]: row for row in rows if row["tensor"] == "output_0"}
    assert by_op["hidden"]["max_abs_error"] == 0 and by_op["hidden"]["cosine"] == pytest.approx(1)
    assert by_op["layer2"]["max_rel_error"] > 1e-4
    assert (first["op"], first["tensor"]) == ("layer2/ReadVariableOp", "output_0")  # reads w2
    assert all(not row["diverged"] for row in rows if row["order"] < first["order"])
    # The command line: same answer, CSV for spreadsheets, exit status 1.
    result = subprocess.run(
        [sys.executable, "-m", "npu_bridge.debugging.compare", dump_path, perturbed_path,
         "--csv", "--threshold", "1e-5"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("order,op,type,tensor")
    assert "first divergence: op %s" % first["op"] in result.stderr
    same = subprocess.run([sys.executable, "-m", "npu_bridge.debugging.compare",
                           dump_path, dump_path], capture_output=True, text=True, timeout=120)
    assert same.returncode == 0 and "none diverges" in same.stdout


def test_tensor_difference_metrics():
    diff = compare.tensor_difference([1.0, -2.0, 4.0], [1.0, -2.0, 3.0])
    assert diff["max_abs_error"] == 1.0 and diff["max_rel_error"] == 0.25
    assert diff["cosine"] == pytest.approx(17.0 / np.sqrt(21.0 * 14.0))


# ---- profiles ----------------------------------------------------------------

def test_a_profile_run_leaves_a_trace_the_profiler_reader_opens(tmp_path):
    from tensorflow.tsl.profiler.protobuf import xplane_pb2
    model_dir = str(tmp_path / "model")
    train(model_dir, 8, iterations=2, profiling_config=ProfilingConfig(
        True, '{"training_trace": "on", "fp_point": "", "steps": "2-5"}'))
    traces = glob.glob(os.path.join(model_dir, "plugins", "profile", "*", "*.xplane.pb"))
    assert len(traces) == 1
    space = xplane_pb2.XSpace()
    with open(traces[0], "rb") as f:
        space.ParseFromString(f.read())
    events = []
    for plane in space.planes:
        names = {key: meta.name for key, meta in plane.event_metadata.items()}
        events.extend(names[event.metadata_id] for line in plane.lines for event in line.events)
    # Op events are "<runtime name>:<type>"; the model's ops ran in the traced loop body.
    traced_ops = {op_name(name.split(":")[0]) for name in events if ":" in name}
    assert {"layer1", "hidden", "layer2", "mse"} <= traced_ops
    # Steps 2-5 with two steps per run: the runs from steps 2 and 4, so four steps' loss.
    assert [op_name(name.split(":")[0]) for name in events].count("mse") == 4
