"""apply_precision_mode: which Grappler pass each precision_mode turns on."""

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.mixed_precision.precision_mode import apply_precision_mode, cpu_has_bf16


def _rewrite(config):
    return config.graph_options.rewrite_options


@pytest.mark.parametrize("mode", ["allow_mix_precision", "allow_fp32_to_fp16", "force_fp16"])
def test_mixed_modes_pick_the_pass_for_the_hardware(mode):
    gpu = _rewrite(apply_precision_mode(None, mode, hardware="gpu"))
    assert gpu.auto_mixed_precision == RewriterConfig.ON
    assert gpu.auto_mixed_precision_onednn_bfloat16 == RewriterConfig.DEFAULT
    bf16 = _rewrite(apply_precision_mode(None, mode, hardware="cpu_bf16"))
    assert bf16.auto_mixed_precision_onednn_bfloat16 == RewriterConfig.ON
    assert bf16.auto_mixed_precision == RewriterConfig.DEFAULT
    plain = apply_precision_mode(None, mode, hardware="cpu")
    assert plain == tf.compat.v1.ConfigProto()


def test_keep_origin_dtype_turns_amp_off_and_input_is_not_mutated():
    base = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    _rewrite(base).auto_mixed_precision = RewriterConfig.ON
    out = apply_precision_mode(base, "must_keep_origin_dtype")
    assert _rewrite(out).auto_mixed_precision == RewriterConfig.OFF
    assert _rewrite(out).auto_mixed_precision_onednn_bfloat16 == RewriterConfig.OFF
    assert out.allow_soft_placement
    assert _rewrite(base).auto_mixed_precision == RewriterConfig.ON
    assert apply_precision_mode(base, None) == base


def test_bad_arguments():
    with pytest.raises(ValueError, match="precision_mode"):
        apply_precision_mode(None, "fp8")
    with pytest.raises(TypeError, match="session_config"):
        apply_precision_mode({"a": 1}, None)


def test_cpuinfo_flags(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text("processor: 0\nflags\t\t: fpu sse avx512f avx512_bf16\n")
    assert cpu_has_bf16(str(path))
    path.write_text("processor: 0\nflags\t\t: fpu sse avx512f\n")
    assert not cpu_has_bf16(str(path))


def test_detected_mode_still_trains_to_the_same_answer():
    """The rewritten graph runs and stays close to float32 results."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(np.linspace(-1, 1, 64 * 16, dtype=np.float32).reshape(64, 16))
        w = tf.constant(np.full((16, 8), 0.25, np.float32))
        y = tf.reduce_sum(tf.matmul(x, w))
    results = []
    for mode in ("must_keep_origin_dtype", "allow_mix_precision"):
        with tf.compat.v1.Session(graph=graph,
                                  config=apply_precision_mode(None, mode)) as sess:
            results.append(sess.run(y))
    assert results[1] == pytest.approx(results[0], abs=0.5)
