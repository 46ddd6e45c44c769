"""Fused kernels and recurrent layers imported from where migrated scripts import them, vs references."""
import logging
import math

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.estimator import npu_aicore_ops, npu_ops
from npu_bridge.estimator.npu.npu_dynamic_rnn import DynamicAUGRU, DynamicGRUV2, DynamicRNN
from npu_bridge.estimator.npu_unary_ops import npu_unary_ops
from npu_bridge.helper import helper

X = np.linspace(-4, 4, 41).astype(np.float32)


def _run(fetches, feed=None):
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        return sess.run(fetches, feed)


def test_gelu_and_fast_gelu_match_their_formulas_and_gradients():
    with tf.Graph().as_default():
        x = tf.constant(X)
        gelu = npu_unary_ops.gelu(x)
        fast = npu_ops.fast_gelu(x)
        v2 = npu_aicore_ops.fast_gelu_v2(x)
        got = _run({"gelu": gelu, "fast": fast, "v2": v2,
                    "dgelu": npu_unary_ops.gelu_grad(tf.ones_like(x), x),
                    "dfast": npu_unary_ops.fast_gelu_grad(tf.ones_like(x), x),
                    "auto_dgelu": tf.gradients(gelu, x)[0]})
    x64 = X.astype(np.float64)
    want_gelu = 0.5 * x64 * (1 + np.tanh(math.sqrt(2 / math.pi) * (x64 + 0.044715 * x64 ** 3)))
    want_fast = x64 / (1 + np.exp(-1.702 * np.abs(x64))) * np.exp(0.851 * (x64 - np.abs(x64)))
    clipped = np.minimum(np.abs(x64), 1.769) - 1.769
    want_v2 = x64 * (np.sign(x64) * (-0.1444 / 2 * clipped ** 2 + 0.5) + 0.5)
    np.testing.assert_allclose(got["gelu"], want_gelu, atol=1e-5)
    np.testing.assert_allclose(got["fast"], want_fast, atol=1e-5)
    np.testing.assert_allclose(got["v2"], want_v2, atol=1e-5)
    np.testing.assert_allclose(got["dgelu"], got["auto_dgelu"], atol=1e-5)
    h = 1e-3
    numeric_fast = ((x64 + h) / (1 + np.exp(-1.702 * (x64 + h)))
                    - (x64 - h) / (1 + np.exp(-1.702 * (x64 - h)))) / (2 * h)
    np.testing.assert_allclose(got["dfast"], numeric_fast, atol=1e-4)


def test_dropout_masks_agree_between_gen_and_do_and_v3():
    gen = helper.get_gen_ops()
    with tf.Graph().as_default():
        x = tf.ones([3, 70])
        mask = gen.drop_out_gen_mask(tf.shape(x), 0.7, seed=1, seed2=2)
        y = gen.drop_out_do_mask(x, mask, 0.7)
        y_again = gen.drop_out_do_mask(2.0 * x, mask, 0.7)
        v3 = npu_aicore_ops.dropout_v3(tf.ones([1000, 100]), 0.6)
        got = _run({"mask": mask, "y": y, "y2": y_again, "v3": v3})
    assert got["mask"].dtype == np.uint8 and got["mask"].shape == (256 // 8,)  # 210 -> 256 bits
    kept = got["y"] != 0
    np.testing.assert_allclose(got["y"][kept], 1 / 0.7, rtol=1e-6)
    np.testing.assert_array_equal(got["y2"] != 0, kept)  # the same mask, the same elements
    bits = np.unpackbits(got["mask"], bitorder="little")[:210].reshape(3, 70).astype(bool)
    np.testing.assert_array_equal(bits, kept)
    assert abs(np.mean(got["v3"] != 0) - 0.6) < 0.01
    np.testing.assert_allclose(got["v3"][got["v3"] != 0], 1 / 0.6, rtol=1e-6)


def test_float_status_reports_overflow_in_the_ops_it_depends_on():
    gen = helper.get_gen_ops()
    with tf.Graph().as_default():
        scale = tf.compat.v1.placeholder(tf.float32, [])
        grads = [tf.constant([1.0, 2.0]) * scale, tf.constant([3.0e38]) * scale]
        status = gen.npu_alloc_float_status()
        with tf.control_dependencies(grads):
            got_status = gen.npu_get_float_status(status)
        finite = tf.reduce_all(tf.equal(0.0, got_status))
        cleared = gen.npu_clear_float_status(got_status)
        with tf.compat.v1.Session() as sess:
            assert sess.run(finite, {scale: 1.0})
            assert not sess.run(finite, {scale: 10.0})  # 3e39 overflows float32
            np.testing.assert_array_equal(sess.run(cleared, {scale: 10.0}), np.zeros(8))


def test_layer_norm_and_basic_lstm_cell_match_tensorflow():
    rng = np.random.RandomState(0)
    x = rng.randn(4, 6).astype(np.float32)
    gamma, beta = rng.rand(6).astype(np.float32), rng.rand(6).astype(np.float32)
    w = rng.randn(5 + 3, 12).astype(np.float32)
    b = rng.randn(12).astype(np.float32)
    xs, h, c = rng.randn(2, 5).astype(np.float32), rng.randn(2, 3).astype(np.float32), \
        rng.randn(2, 3).astype(np.float32)
    with tf.Graph().as_default():
        y, mean, var = npu_aicore_ops.layer_norm(x, gamma, beta, begin_norm_axis=1,
                                                 begin_params_axis=1, epsilon=1e-6)
        ct, ht, *_ = npu_ops.basic_lstm_cell(xs, h, c, w, b, 1.0, 1.0, True, "tanh")
        cell = tf.compat.v1.nn.rnn_cell.LSTMCell(3, forget_bias=1.0)
        ref_h, ref_state = cell(tf.constant(xs), (tf.constant(c), tf.constant(h)))
        load = [cell._kernel.assign(w), cell._bias.assign(b)]  # pylint: disable=protected-access
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(load)
            got = sess.run({"y": y, "mean": mean, "var": var, "ct": ct, "ht": ht,
                            "ref_c": ref_state.c, "ref_h": ref_h})
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-6) * gamma + beta
    np.testing.assert_allclose(got["y"], want, atol=1e-5)
    assert got["mean"].shape == (4, 1)
    np.testing.assert_allclose(got["ct"], got["ref_c"], atol=1e-5)
    np.testing.assert_allclose(got["ht"], got["ref_h"], atol=1e-5)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_dynamic_rnn_matches_a_numpy_lstm_with_gate_order_ijfo():
    rng = np.random.RandomState(1)
    T, B, I, H = 5, 3, 4, 6
    x = rng.randn(T, B, I).astype(np.float32)
    with tf.Graph().as_default():
        layer = DynamicRNN(H, tf.float32, forget_bias=1.0)
        outputs = layer(tf.constant(x), seq_length=tf.constant([5, 3, 1]))
        assert len(outputs) == 8
        got = _run({"out": list(outputs), "w": layer.weights[0], "b": layer.weights[1]})
    w, b = got["w"], got["b"]
    assert w.shape == (I + H, 4 * H) and b.shape == (4 * H,)
    h, c = np.zeros((B, H)), np.zeros((B, H))
    lengths = np.array([5, 3, 1])
    for t in range(T):
        gates = np.concatenate([x[t], h], 1) @ w + b
        i, j, f, o = np.split(gates, 4, axis=1)
        i, j, f, o = _sigmoid(i), np.tanh(j), _sigmoid(f + 1.0), _sigmoid(o)
        c_new = f * c + i * j
        h_new = o * np.tanh(c_new)
        alive = (t < lengths)[:, None]
        y, out_h, out_c, gi, gj, gf, go, tanhc = (v[t] for v in got["out"])
        np.testing.assert_allclose(y, np.where(alive, h_new, 0), atol=1e-5)
        np.testing.assert_allclose(gi, np.where(alive, i, 0), atol=1e-5)
        np.testing.assert_allclose(gf, np.where(alive, f, 0), atol=1e-5)
        np.testing.assert_allclose(tanhc, np.where(alive, np.tanh(c_new), 0), atol=1e-5)
        h, c = np.where(alive, h_new, h), np.where(alive, c_new, c)
        np.testing.assert_allclose(out_c, np.where(alive, c, 0), atol=1e-5)


def test_dynamic_gru_v2_matches_keras_gru_reset_after():
    rng = np.random.RandomState(2)
    T, B, I, H = 4, 2, 3, 5
    x = rng.randn(T, B, I).astype(np.float32)
    with tf.Graph().as_default():
        layer = DynamicGRUV2(H, tf.float32)
        y, output_h, update, reset, new, hidden_new = layer(tf.constant(x))
        w_in, w_hid, b_in, b_hid = layer.weights
        gru = tf.keras.layers.GRU(H, reset_after=True, return_sequences=True, time_major=True)
        ref = gru(tf.constant(x))
        load = [gru.cell.kernel.assign(w_in), gru.cell.recurrent_kernel.assign(w_hid),
                gru.cell.bias.assign(tf.stack([b_in, b_hid]))]
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(load)
            got = sess.run({"y": y, "h": output_h, "ref": ref, "z": update})
    assert got["y"].shape == (T, B, H) and got["z"].shape == (T, B, H)
    np.testing.assert_allclose(got["y"], got["ref"], atol=1e-5)
    np.testing.assert_allclose(got["h"], got["ref"], atol=1e-5)


def test_unimplemented_kernels_say_which_and_why():
    with pytest.raises(NotImplementedError, match="prod_env_mat_a"):
        helper.get_gen_ops().prod_env_mat_a
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="direction"):
            DynamicGRUV2(4, tf.float32, direction="BIDIRECTIONAL")
        with pytest.raises(NotImplementedError, match="use_peephole"):
            DynamicRNN(4, tf.float32, use_peephole=True)


def test_no_op_scopes_add_nothing_and_say_so_once(caplog):
    from npu_bridge.estimator.npu import npu_scope
    from hccl.split.api import set_split_strategy_by_idx
    with tf.Graph().as_default() as graph:
        with caplog.at_level(logging.WARNING, logger="npu_bridge"):
            with npu_scope.without_npu_compile_scope():
                tf.constant(1.0, name="inside")
            with npu_scope.without_npu_compile_scope():
                pass
            set_split_strategy_by_idx([20, 100])
        assert [op.name for op in graph.get_operations()] == ["inside"]
        assert sorted(graph.get_operation_by_name("inside").node_def.attr) == ["dtype", "value"]
    said = [r.getMessage() for r in caplog.records]
    assert sum("without_npu_compile_scope has no effect" in m for m in said) <= 1
    with pytest.raises(ValueError, match="increasing positive ints"):
        set_split_strategy_by_idx([100, 20])


def test_bidirectional_dynamic_rnn_stacks_forward_and_reversed_backward():
    rng = np.random.RandomState(3)
    T, B, I, H = 4, 2, 3, 5
    x = rng.randn(T, B, I).astype(np.float32)
    lengths = np.array([4, 2], np.int32)
    with tf.Graph().as_default():
        both = DynamicRNN(H, tf.float32, direction="BIDIRECTIONAL")
        out = both(tf.constant(x), seq_length=tf.constant(lengths))
        w, b = both.weights
        one = DynamicRNN(H, tf.float32)
        fwd = one(tf.constant(x), seq_length=tf.constant(lengths), weight=w[0], bias=b[0])
        rev_x = tf.reverse_sequence(tf.constant(x), lengths, seq_axis=0, batch_axis=1)
        bwd = one(rev_x, seq_length=tf.constant(lengths), weight=w[1], bias=b[1])
        got = _run({"y": out[0], "fwd": fwd[0], "bwd": tf.reverse_sequence(
            bwd[0], lengths, seq_axis=0, batch_axis=1), "w": w})
    assert got["w"].shape == (2, I + H, 4 * H) and got["y"].shape == (2, T, B, H)
    np.testing.assert_allclose(got["y"][0], got["fwd"], atol=1e-6)
    np.testing.assert_allclose(got["y"][1], got["bwd"], atol=1e-6)
    assert not np.allclose(got["y"][0], got["y"][1])


def test_dynamic_augru_matches_a_numpy_augru():
    rng = np.random.RandomState(4)
    T, B, I, H = 3, 2, 3, 4
    x = rng.randn(T, B, I).astype(np.float32)
    att = rng.rand(T, B).astype(np.float32)
    with tf.Graph().as_default():
        layer = DynamicAUGRU(H, tf.float32)
        outputs = layer(tf.constant(x), tf.constant(att))
        got = _run({"out": list(outputs), "weights": layer.weights})
    assert len(got["out"]) == 7
    w_in, w_hid, b_in, b_hid = got["weights"]
    h = np.zeros((B, H))
    for t in range(T):
        gx, gh = x[t] @ w_in + b_in, h @ w_hid + b_hid
        z = _sigmoid(gx[:, :H] + gh[:, :H])
        r = _sigmoid(gx[:, H:2 * H] + gh[:, H:2 * H])
        n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
        z_att = (1 - att[t][:, None]) * z
        h = z_att * h + (1 - z_att) * n
        y, out_h, update, update_att = (v[t] for v in got["out"][:4])
        np.testing.assert_allclose(y, h, atol=1e-5)
        np.testing.assert_allclose(update, z, atol=1e-5)
        np.testing.assert_allclose(update_att, z_att, atol=1e-5)


def test_adam_and_lamb_kernels_match_numpy_and_assign_their_state():
    rng = np.random.RandomState(5)
    grad, v, m, w = (rng.rand(6).astype(np.float32) for _ in range(4))
    b1, b2, eps, lr, decay, steps = 0.9, 0.999, 1e-6, 0.01, 0.1, 3
    with tf.Graph().as_default():
        v_var, m_var, w_var = (tf.Variable(a) for a in (v, m, w))
        adam = npu_ops.adam_apply_one_with_decay_assign(
            grad, v_var, m_var, w_var, lr, b1, 1 - b1, b2, 1 - b2, decay, eps)
        with tf.control_dependencies(adam):
            after_adam = [tf.identity(x.read_value()) for x in (v_var, m_var, w_var)]
        lamb = helper.get_gen_ops().lamb_apply_optimizer_assign(
            grad, v, m, w, b1, 1 - b1, b2, 1 - b2, eps, steps, 1.0, decay)
        got = _run({"adam": list(adam), "after": after_adam, "lamb": list(lamb)})
    want_v = grad ** 2 * (1 - b2) + v * b2
    want_m = m * b1 + grad * (1 - b1)
    want_w = w - (want_m / (np.sqrt(want_v) + eps) + w * decay) * lr
    for got_value, want in zip(got["adam"], (want_v, want_m, want_w)):
        np.testing.assert_allclose(got_value, want, rtol=1e-5)
    for got_value, want in zip(got["after"], (want_v, want_m, want_w)):
        np.testing.assert_allclose(got_value, want, rtol=1e-5)  # written into the variables
    m_hat, v_hat = want_m / (1 - b1 ** steps), want_v / (1 - b2 ** steps)
    np.testing.assert_allclose(got["lamb"][0], m_hat / (np.sqrt(v_hat) + eps) + w * decay,
                               rtol=1e-5)
    np.testing.assert_allclose(got["lamb"][1], want_v, rtol=1e-5)
    np.testing.assert_allclose(got["lamb"][2], want_m, rtol=1e-5)


def test_lamb_weight_assign_is_the_trust_ratio_step_as_the_zoo_calls_it():
    # BERT's LAMB in the zoo: update from lamb_apply_optimizer_assign, then
    # lamb_apply_weight_assign(norm(var), norm(update), lr, update, var).
    rng = np.random.RandomState(7)
    w, update = rng.randn(5).astype(np.float32), rng.randn(5).astype(np.float32)
    lr = 0.01
    with tf.Graph().as_default():
        w_var, zero_var = tf.Variable(w), tf.Variable(np.zeros(5, np.float32))
        step = npu_ops.lamb_apply_weight_assign(tf.norm(w_var), tf.norm(update), lr, update,
                                                w_var)
        with tf.control_dependencies([step]):
            after = tf.identity(w_var.read_value())
        zero_w = helper.get_gen_ops().lamb_apply_weight_assign(
            tf.norm(zero_var), tf.norm(update), lr, update, zero_var)
        zero_g = npu_ops.lamb_apply_weight_assign(
            tf.norm(w), 0.0, lr, np.zeros(5, np.float32), w)
        got = _run({"step": step, "after": after, "zero_w": zero_w, "zero_g": zero_g})
    ratio = np.linalg.norm(w) / np.linalg.norm(update)
    np.testing.assert_allclose(got["step"], w - lr * ratio * update, rtol=1e-5)
    np.testing.assert_allclose(got["after"], got["step"], rtol=0)  # written into var
    np.testing.assert_allclose(got["zero_w"], -lr * update, rtol=1e-6)  # ||w|| = 0: ratio 1
    np.testing.assert_array_equal(got["zero_g"], w)  # ||update|| = 0: no step, no nan
