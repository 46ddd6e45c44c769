"""TF 1.15-style scripts using tf-slim in full, contrib's internal paths and parts, the TF-internal
names 2.x moved, and TF 1.15-named RNN checkpoints, run unchanged through ``npu-bridge-run``."""
import subprocess
import sys

import numpy as np
import tensorflow as tf

from distributed_util import ROOT, env
from tf1_util import run_tf1, tagged_json


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_slim_nets_batch_norm_train_ops_and_data(tmp_path):
    rc, out = run_tf1("slim_training.py", tmp_path, timeout=240)
    assert rc == 0, out[-4000:]
    result = tagged_json(out, "RESULT")
    resnet = result["resnet"]
    losses = resnet["losses"]
    assert np.mean(losses[-5:]) < 0.5 * np.mean(losses[:5]), losses  # the tiny ResNet learns
    # Batch norm's moving mean after one step, decay 0.9 from zeros: 0.1 * that batch's mean.
    np.testing.assert_allclose(resnet["moving_mean_after_one"],
                               0.1 * np.array(resnet["bn_input_mean"]), rtol=1e-4, atol=1e-6)
    assert resnet["update_ops"] == 8  # moving mean and variance of 4 batch norms
    assert resnet["gradient_summaries"] == 2 * 14  # a histogram and a norm per trainable variable
    assert "tiny/block1/unit_1/bottleneck_v1/shortcut/BatchNorm/moving_variance" in \
        resnet["variables"]
    # optimize_loss: gradient [6, 8] clipped to norm 1, learning rate 0.1 then decayed to 0.05.
    after_one, after_two = result["optimize_loss"]
    np.testing.assert_allclose(after_one, [3.0 - 0.06, 4.0 - 0.08], rtol=1e-6)
    grad = 2 * np.array(after_one)
    np.testing.assert_allclose(after_two, np.array(after_one) - 0.05 * grad / np.linalg.norm(grad),
                               rtol=1e-6)
    multiplied, clipped = result["gradients"]
    assert multiplied == [9.0, 12.0]
    np.testing.assert_allclose(clipped, [0.6, 0.8], rtol=1e-6)
    assert result["records"] == {"labels": [10, 11, 12], "images_equal": True}


def _lars(init, grad, steps, lr=0.1, momentum=0.9, weight_decay=0.01, eeta=0.001):
    var, mom = init.copy(), np.zeros_like(init)
    for _ in range(steps):
        w_norm, g_norm = np.linalg.norm(var), np.linalg.norm(grad)
        trust = eeta * w_norm / (g_norm + weight_decay * w_norm)
        mom = momentum * mom + lr * trust * (grad + weight_decay * var)
        var = var - mom
    return var


def _adam(init, grad, rows, steps, nesterov, lazy, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
    var, m, v = init.copy(), np.zeros_like(init), np.zeros_like(init)
    for t in range(1, steps + 1):
        step_lr = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        if lazy:
            m[rows] = b1 * m[rows] + (1 - b1) * grad[rows]
            v[rows] = b2 * v[rows] + (1 - b2) * grad[rows] ** 2
            var[rows] -= step_lr * m[rows] / (np.sqrt(v[rows]) + eps)
        else:
            m = b1 * m + (1 - b1) * grad
            v = b2 * v + (1 - b2) * grad ** 2
            m_bar = b1 * m + (1 - b1) * grad if nesterov else m
            var[rows] -= step_lr * m_bar[rows] / (np.sqrt(v[rows]) + eps)
    return var


def test_contrib_internal_paths_moved_internals_and_parts(tmp_path):
    rc, out = run_tf1("contrib_and_internals.py", tmp_path, timeout=240)
    assert rc == 0, out[-4000:]
    result = tagged_json(out, "RESULT")
    not_same = [name for name, same in result["identities"].items() if same is not True]
    assert not not_same, not_same
    moved = result["moved"]
    assert (moved["cond"], moved["case"], moved["while_loop"]) == (6.0, 3.0, 8)
    assert moved["stack"] == [[1, 3], [2, 4]] and moved["unstack"] == [3, 4]
    assert moved["variable"] == 4.0 and moved["is_sequence"] == [True, False, True]
    assert "VariableV2" not in moved["frozen_ops"] and moved["frozen_out"] == [[1.0, 2.0]] * 2
    assert moved["checkpoint_w"] == [[1.0, 2.0]]
    picture = np.arange(9.0).reshape(3, 3)
    image = result["image"]
    assert image["rotate"] == np.rot90(picture).tolist()  # 90 degrees counterclockwise
    assert image["translate"] == [[0, 0, 1], [0, 3, 4], [0, 6, 7]]  # one pixel right
    assert image["composed"] == [[1, 0, -1, 0, 1, -1, 0, 0]]
    assert image["grad"] == [[1, 1, 0], [1, 1, 0], [0, 0, 0]]
    # Optimizers, two steps on a sparse gradient (rows 0, 0 and 2 of a gather).
    init = np.array([[1.0, -2.0], [0.5, 0.5], [3.0, 1.0]])
    grad = np.array([[2.0, 4.0], [0.0, 0.0], [-1.0, 1.0]])
    optimizers = result["optimizers"]
    np.testing.assert_allclose(optimizers["lars"], _lars(init, grad, 2), rtol=1e-5)
    np.testing.assert_allclose(optimizers["nadam"],
                               _adam(init, grad, [0, 2], 2, nesterov=True, lazy=False), rtol=1e-5)
    np.testing.assert_allclose(optimizers["lazy_adam"],
                               _adam(init, grad, [0, 2], 2, nesterov=False, lazy=True), rtol=1e-5)
    parts = result["parts"]
    logits, labels = np.array([[2.0, -1.0], [0.5, 0.0]]), np.array([[1.0, 0.0], [0.0, 1.0]])
    expected = np.mean(np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-abs(logits))))
    np.testing.assert_allclose(parts["sigmoid_cross_entropy"], expected, rtol=1e-5)
    assert parts["accuracy"] == 0.5 and parts["streaming_mean"] == 2.0
    np.testing.assert_allclose(parts["kl"], np.log(2.0) + 2.0 / 8.0 - 0.5, rtol=1e-5)
    np.testing.assert_allclose(parts["entropy"], -(0.25 * np.log(0.25) + 0.75 * np.log(0.75)),
                               rtol=1e-5)
    assert parts["xla"] == [[3.0, 5.0]] and parts["jit"] == 6.0
    assert parts["tile_batch"] == [[1, 2], [1, 2], [3, 4], [3, 4]]
    np.testing.assert_allclose(parts["sequence_loss"], np.log1p(np.exp(-2.0)), rtol=1e-5)
    assert parts["loss_scaled"] == [0.0, 0.0]  # scaled by 128 and back: plain SGD's step
    assert parts["inf_step_skipped"] == [1.0]
    np.testing.assert_allclose(parts["clipped"], [-0.6, -0.8], rtol=1e-6)
    assert parts["parameters"] == 5
    assert parts["mirrored_devices"] == ["/replica:0/task:0/device:CPU:0"]  # num_gpus=0
    assert parts["cluster_spec"] == {"worker": ["127.0.0.1:1"]} and parts["tpu_resolver"]
    assert parts["mode_keys"] == ["train", "infer"]
    assert parts["metric_learning"] and parts["training_evaluate_repeatedly"]
    refused = result["refused"]
    assert refused.pop("quantize imports") is True
    for name, message in refused.items():
        assert message and "is not provided by npu_bridge's TF1 mode" in message, name
        assert ". Instead: " in message, name
    assert refused["quantize"].startswith(
        "ContribAttributeNotProvided: tf.contrib.quantize.create_training_graph is not provided")
    assert refused["import quantize.python"].startswith(
        "ContribModuleNotProvided: tensorflow.contrib.quantize.python is not provided")
    assert "tf.compat.v1.nn.dynamic_rnn" in refused["legacy_seq2seq"]


# A checkpoint as TF 1.15 wrote it for the models of rnn_checkpoint.py (names and layouts of
# TF 1.15's cells; the cudnn layers' opaque buffers are there too, unread).
DEPTH, UNITS = 3, 4


def _tf115_checkpoint_values(rng):
    def lstm(prefix, depth):
        return {prefix + "/kernel": rng.normal(0, 0.5, (depth + UNITS, 4 * UNITS)),
                prefix + "/bias": rng.normal(0, 0.5, 4 * UNITS)}
    values = {}
    values.update(lstm("block/rnn/lstm_cell", DEPTH))
    values.update(lstm("fused/lstm_cell", DEPTH))
    values.update(lstm("multi/rnn/multi_rnn_cell/cell_0/basic_lstm_cell", DEPTH))
    values.update(lstm("multi/rnn/multi_rnn_cell/cell_1/basic_lstm_cell", UNITS))
    ln = "ln/rnn/layer_norm_basic_lstm_cell"
    values[ln + "/kernel"] = rng.normal(0, 0.5, (DEPTH + UNITS, 4 * UNITS))
    for part in ("input", "transform", "forget", "output", "state"):
        values["%s/%s/gamma" % (ln, part)] = rng.uniform(0.5, 1.5, UNITS)
        values["%s/%s/beta" % (ln, part)] = rng.normal(0, 0.2, UNITS)
    cudnn = "cudnn_lstm/rnn/multi_rnn_cell/cell_%d/cudnn_compatible_lstm_cell"
    values.update(lstm(cudnn % 0, DEPTH))
    values.update(lstm(cudnn % 1, UNITS))
    values["cudnn_lstm/opaque_kernel"] = rng.normal(0, 1, 200)
    gru = "cudnn_gru/rnn/multi_rnn_cell/cell_0/cudnn_compatible_gru_cell"
    values[gru + "/gates/kernel"] = rng.normal(0, 0.5, (DEPTH + UNITS, 2 * UNITS))
    values[gru + "/gates/bias"] = rng.normal(0, 0.5, 2 * UNITS)
    values[gru + "/candidate/input_projection/kernel"] = rng.normal(0, 0.5, (DEPTH, UNITS))
    values[gru + "/candidate/input_projection/bias"] = rng.normal(0, 0.5, UNITS)
    values[gru + "/candidate/hidden_projection/kernel"] = rng.normal(0, 0.5, (UNITS, UNITS))
    values[gru + "/candidate/hidden_projection/bias"] = rng.normal(0, 0.5, UNITS)
    values["cudnn_gru/opaque_kernel"] = rng.normal(0, 1, 100)
    return {name: value.astype(np.float32) for name, value in values.items()}


def _write_checkpoint(values, path):
    graph = tf.Graph()
    with graph.as_default():
        variables = {name: tf.compat.v1.Variable(value, name=name) for name, value in values.items()}
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            return tf.compat.v1.train.Saver(variables).save(sess, path)


def _lstm(inputs, kernel, bias, forget_bias, layer_norm=None):
    """TF 1.15's LSTM maths (gates i, j, f, o), time-major; returns all h."""
    h = c = np.zeros((inputs.shape[1], UNITS))
    outputs = []
    for x in inputs:
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ kernel + bias, 4, axis=1)
        if layer_norm:
            i, j, f, o = (layer_norm(g, part) for g, part in
                          zip((i, j, f, o), ("input", "transform", "forget", "output")))
        c = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
        if layer_norm:
            c = layer_norm(c, "state")
        h = np.tanh(c) * _sigmoid(o)
        outputs.append(h)
    return np.stack(outputs), c


def _cudnn_gru(inputs, w, prefix):
    h = np.zeros((inputs.shape[1], UNITS))
    outputs = []
    for x in inputs:
        gates = _sigmoid(np.concatenate([x, h], 1) @ w[prefix + "/gates/kernel"]
                         + w[prefix + "/gates/bias"])
        reset, update = np.split(gates, 2, axis=1)
        candidate = np.tanh(x @ w[prefix + "/candidate/input_projection/kernel"]
                            + w[prefix + "/candidate/input_projection/bias"]
                            + reset * (h @ w[prefix + "/candidate/hidden_projection/kernel"]
                                       + w[prefix + "/candidate/hidden_projection/bias"]))
        h = update * h + (1 - update) * candidate
        outputs.append(h)
    return np.stack(outputs)


def test_tf115_named_rnn_checkpoint_restores_contrib_cells_and_cudnn_layers(tmp_path):
    w = _tf115_checkpoint_values(np.random.RandomState(3))
    path = _write_checkpoint(w, str(tmp_path / "tf115" / "model.ckpt"))
    rc, out = run_tf1("rnn_checkpoint.py", path, timeout=240)
    assert rc == 0, out[-4000:]
    result = tagged_json(out, "RESULT")
    # Every variable of the script was in the checkpoint; only the opaque buffers are left over.
    assert set(w) - set(result["variables"]) == {"cudnn_lstm/opaque_kernel",
                                                  "cudnn_gru/opaque_kernel"}
    x = np.linspace(-1.0, 1.0, 5 * 2 * DEPTH).reshape(5, 2, DEPTH).astype(np.float32)
    got = {name: np.array(value) for name, value in result["outputs"].items()}

    def check(name, expected):
        np.testing.assert_allclose(got[name], expected, rtol=2e-4, atol=2e-5, err_msg=name)

    check("block", _lstm(x, w["block/rnn/lstm_cell/kernel"], w["block/rnn/lstm_cell/bias"], 1.0)[0])
    check("fused", _lstm(x, w["fused/lstm_cell/kernel"], w["fused/lstm_cell/bias"], 1.0)[0])
    multi = "multi/rnn/multi_rnn_cell/cell_%d/basic_lstm_cell/"
    layer0 = _lstm(x, w[multi % 0 + "kernel"], w[multi % 0 + "bias"], 1.0)[0]
    check("multi", _lstm(layer0, w[multi % 1 + "kernel"], w[multi % 1 + "bias"], 1.0)[0])
    ln = "ln/rnn/layer_norm_basic_lstm_cell/"

    def layer_norm(value, part):
        normed = (value - value.mean(1, keepdims=True)) / np.sqrt(value.var(1, keepdims=True)
                                                                   + 1e-12)
        return normed * w[ln + part + "/gamma"] + w[ln + part + "/beta"]

    check("layer_norm", _lstm(x, w[ln + "kernel"], 0.0, 1.0, layer_norm)[0])
    cudnn = "cudnn_lstm/rnn/multi_rnn_cell/cell_%d/cudnn_compatible_lstm_cell/"
    first, first_c = _lstm(x, w[cudnn % 0 + "kernel"], w[cudnn % 0 + "bias"], 0.0)
    second, second_c = _lstm(first, w[cudnn % 1 + "kernel"], w[cudnn % 1 + "bias"], 0.0)
    check("cudnn_lstm", second)
    np.testing.assert_allclose(result["cudnn_lstm_h"], [first[-1], second[-1]], rtol=2e-4,
                               atol=2e-5)
    np.testing.assert_allclose(result["cudnn_lstm_c"], [first_c, second_c], rtol=2e-4, atol=2e-5)
    gru = _cudnn_gru(x, w, "cudnn_gru/rnn/multi_rnn_cell/cell_0/cudnn_compatible_gru_cell")
    check("cudnn_gru", gru)
    np.testing.assert_allclose(result["cudnn_gru_h"], [gru[-1]], rtol=2e-4, atol=2e-5)


def test_outside_the_mode_tensorflow_internals_and_tf_slim_are_untouched():
    code = ("import npu_bridge.npu_init, npu_bridge.tf1\n"
            "import npu_bridge.tf1.contrib.rnn, npu_bridge.tf1.contrib.framework\n"
            "import tf_slim\n"
            "from tensorflow.python.ops import control_flow_ops, array_ops\n"
            "from tensorflow.python.framework import ops, graph_util\n"
            "from tensorflow.python.util import nest\n"
            "missing = [n for m, n in [(control_flow_ops, 'cond'), (array_ops, 'stack'),\n"
            "           (ops, 'Tensor'), (nest, 'is_sequence'), (tf_slim, 'variable_scope'),\n"
            "           (graph_util, 'convert_variables_to_constants')] if n not in vars(m)]\n"
            "print('MISSING', len(missing))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env(), cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "MISSING 6" in out.stdout, out.stderr[-3000:]
