"""TF 1.15-style scripts run unchanged through ``npu-bridge-run`` (subprocesses, values checked)."""
import json
import os
import re

import numpy as np
from tensorboard.backend.event_processing import event_accumulator

from distributed_util import ROOT
from tf1_util import SCRIPTS, launch_tf1, run_python, run_tf1, tagged_json


def _host_call_records(logdir, tag):
    """[(step, value)] of ``tag`` in the order written, read with TensorBoard's reader."""
    records = []
    for name in sorted(os.listdir(logdir)):
        acc = event_accumulator.EventAccumulator(os.path.join(logdir, name),
                                                 size_guidance={event_accumulator.SCALARS: 0},
                                                 purge_orphaned_data=False)
        acc.Reload()
        if tag in acc.Tags()["scalars"]:  # contrib's scalar writes simple_value records
            records.extend((event.step, event.value) for event in acc.Scalars(tag))
    return records


def _momentum_losses(x, y, steps, lr=0.05, momentum=0.9):
    """Loss before each update of a zero-initialised linear model under MomentumOptimizer."""
    w, b = np.zeros((x.shape[1], 1)), np.zeros(1)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    losses = []
    for _ in range(steps):
        err = x @ w + b - y
        losses.append(float(np.mean(err ** 2)))
        gw, gb = 2 * x.T @ err / err.size, 2 * err.sum(0) / err.size
        vw, vb = momentum * vw + gw, momentum * vb + gb
        w, b = w - lr * vw, b - lr * vb
    return losses


def test_host_call_with_contrib_summary_records_every_step(tmp_path):
    # Ascend's documented host_call shape: contrib summary in host_fn, 20 steps, 5 per loop.
    rc, out = run_tf1("host_call_summary.py", "--model_dir=%s" % tmp_path, "--steps=20",
                      "--iterations_per_loop=5")
    assert rc == 0, out[-4000:]
    assert "FINAL_STEP 20" in out
    records = _host_call_records(str(tmp_path / "host"), "host_call_loss")
    x = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0],
                  [0.5, 2.0], [1.5, 0.5], [3.0, 1.0], [2.0, 2.5]])
    y = x @ np.array([[2.0], [-1.0]]) + 0.5
    # One record per step, in step order, each with that step's loss.
    np.testing.assert_allclose([value for _, value in records], _momentum_losses(x, y, 20),
                               rtol=1e-4, atol=1e-5)
    # The [1]-shaped global step read (as in the documented example) carries the step after
    # its update: exactly 1..20, each once.
    assert [step for step, _ in records] == list(range(1, 21))


def test_session_script_with_config_proto_and_iteration_per_loop():
    rc, out = run_tf1("session_iteration.py", 3)
    assert rc == 0, out[-4000:]
    result = tagged_json(out, "RESULT")
    assert result["variable_type"] == "RefVariable"  # TF1 behaviour: reference variables
    assert result["global_step"] == 30  # 3 runs of 10 iterations
    assert result["iterations_per_loop"] == 10 and result["use_off_line"] is True
    assert result["allow_soft_placement"] is True
    x = np.arange(24, dtype=np.float64).reshape(6, 4) / 24.0
    y = x @ np.array([[1.0], [2.0], [-1.0], [0.5]]) + 0.25
    w, b = np.zeros((4, 1)), np.zeros(1)
    for _ in range(30):
        err = x @ w + b - y
        w, b = w - 0.1 * 2 * x.T @ err / err.size, b - 0.1 * 2 * err.sum(0) / err.size
    np.testing.assert_allclose(result["w"], w.ravel(), rtol=1e-4)
    np.testing.assert_allclose(result["b"], b, rtol=1e-4)
    np.testing.assert_allclose(result["loss"], np.mean((x @ w + b - y) ** 2), rtol=1e-4)


def test_estimator_with_slim_contrib_layers_and_contrib_data(tmp_path):
    rc, out = run_tf1("estimator_contrib_layers.py", tmp_path / "model")
    assert rc == 0, out[-4000:]
    result = tagged_json(out, "RESULT")
    assert result["global_step"] == 100
    assert result["accuracy"] >= 0.97, result["accuracy"]
    for name in ("fc1/weights", "fc1/biases", "LayerNorm/gamma", "LayerNorm/beta",
                 "logits/weights", "logits/biases"):
        assert name in result["variables"]
    # map_and_batch mapped the first 32 indices in order (no shuffle in eval input).
    rng = np.random.RandomState(0)
    points = np.concatenate([rng.normal(-1.0, 0.4, (200, 2)), rng.normal(1.0, 0.4, (200, 2))])
    np.testing.assert_allclose(result["first_x"], points[:3].astype(np.float32) * 2.0, rtol=1e-6)
    assert result["first_y"] == [0] * 32


def test_runpy_semantics_and_what_each_module_sees():
    rc, out = run_tf1(os.path.join("pkg_layout", "main_script.py"), "--flag", "x",
                      extra_env={"EXIT_WITH": "4"})
    assert rc == 4, out[-4000:]  # sys.exit code reaches the caller
    facts = tagged_json(out, "FACTS")
    assert facts["name"] == "__main__"
    assert facts["argv"] == [os.path.join(SCRIPTS, "pkg_layout", "main_script.py"), "--flag", "x"]
    assert facts["path0"] == os.path.join(SCRIPTS, "pkg_layout")
    assert facts["output_shape"] == [1, 2]
    for key in ("model_lib_same_tf", "has_session", "compat_v1_is_tf1", "compat_v2_has_function",
                "ops_graph", "math_ops_add", "contrib_is_tf_contrib", "estimator_module",
                "sys_modules_tf_real", "npu_bridge_sees_real_tf", "real_tf_has_no_contrib"):
        assert facts[key] is True, key
    assert facts["executing_eagerly"] is False and facts["variable_type"] == "RefVariable"
    assert facts["hparams"] == 0.25
    assert facts["star_import"] == {"kept_compat_v1": True, "given_is_tf1_module": True,
                                    "npu_names": True}
    assert facts["contrib_attribute_error"] == (
        "ContribAttributeNotProvided: tf.contrib.lite is not provided by npu_bridge's TF1 mode "
        "(TensorFlow 2.15 has it as tf.lite; see docs/tf1_mode.md for what it provides)")
    assert facts["contrib_import_error"].startswith(
        "ContribModuleNotProvided: tensorflow.contrib.lite is not provided by "
        "npu_bridge's TF1 mode")
    assert facts["hasattr_missing_part"] is False


def test_dash_m_dash_c_and_an_uncaught_error(tmp_path):
    (tmp_path / "mod_main.py").write_text(
        "import sys, tensorflow as tf\nprint('MOD', __name__, sys.argv[1:], tf.Session.__name__)\n")
    rc, out = run_python(["-m", "npu_bridge.run", "-m", "mod_main", "a"],
                         extra_env={"PYTHONPATH": "%s%s%s" % (tmp_path, os.pathsep, ROOT)})
    assert rc == 0 and "MOD __main__ ['a'] Session" in out, out[-2000:]
    # -c, and an uncaught error: traceback naming the contrib name, exit code 1.
    rc, out = run_python(["-m", "npu_bridge.run", "-c",
                          "import sys, tensorflow as tf\n"
                          "print('CODE', sys.argv, tf.ConfigProto.__name__)\n"
                          "tf.contrib.seq2seq.BasicDecoder", "b"])
    assert rc == 1 and "CODE ['-c', 'b'] ConfigProto" in out, out[-2000:]
    # a name refused on purpose also says what to use instead
    assert re.search(r"ContribAttributeNotProvided: tf\.contrib\.seq2seq\.BasicDecoder is not "
                     r"provided by npu_bridge's TF1 mode .*\. Instead: .*tfa\.seq2seq", out), \
        out[-2000:]


def test_two_ranks_through_the_launcher_end_equal(tmp_path):
    rc, out = launch_tf1(2, "ranks_estimator.py", tmp_path, timeout=150)
    assert rc == 0, out[-4000:]
    ranks = {}
    for line in out.splitlines():
        found = re.match(r"\[rank (\d)\] VARS rank=(\d) (.*)", line)
        if found:
            ranks[int(found.group(2))] = json.loads(found.group(3))
    assert sorted(ranks) == [0, 1], out[-4000:]
    assert ranks[0]["global_step"] == ranks[1]["global_step"] == 12
    assert sorted(ranks[0]) == sorted(ranks[1])
    for name in ranks[0]:
        np.testing.assert_array_equal(ranks[0][name], ranks[1][name], err_msg=name)
