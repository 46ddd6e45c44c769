"""npu_init config helpers: NpuOptimizer entries run on stock TF and are read back."""

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.migration.session_helpers import (
    npu_config_proto, npu_graph_options, npu_optimizer_options, npu_run_config_init,
    npu_session_config_init, read_npu_optimizer_options)

tf.compat.v1.disable_eager_execution()


def _migrated_config():
    """What migration tools write into scripts."""
    config = tf.compat.v1.ConfigProto()
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["use_off_line"].b = True
    custom_op.parameter_map["iterations_per_loop"].i = 10
    custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("must_keep_origin_dtype")
    custom_op.parameter_map["enable_dump"].b = False
    config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    return config


def test_session_with_npu_optimizer_runs_on_stock_tf():
    config = npu_config_proto(_migrated_config())
    graph = tf.Graph()
    with graph.as_default():
        v = tf.compat.v1.get_variable("v", initializer=[1.0, 2.0])
        out = tf.reduce_sum(v * 3.0)
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        sess.run(init)
        assert sess.run(out) == 9.0


def test_options_are_read_back():
    options = read_npu_optimizer_options(npu_config_proto(_migrated_config()))
    assert options == {"use_off_line": True, "iterations_per_loop": 10,
                       "precision_mode": "must_keep_origin_dtype",
                       "enable_dump": False}
    assert read_npu_optimizer_options(tf.compat.v1.ConfigProto()) == {}
    assert read_npu_optimizer_options(None) == {}


def test_npu_config_proto_is_idempotent_and_sets_original_fields():
    config = npu_config_proto(npu_config_proto(None))
    rewrite = config.graph_options.rewrite_options
    assert [c.name for c in rewrite.custom_optimizers] == ["NpuOptimizer"]
    assert rewrite.remapping == RewriterConfig.OFF
    assert rewrite.memory_optimization == RewriterConfig.OFF
    assert config.allow_soft_placement and not config.log_device_placement
    assert npu_session_config_init("not a config").graph_options.rewrite_options \
        .custom_optimizers[0].name == "NpuOptimizer"


def test_precision_mode_from_parameter_map_is_honoured():
    config = _migrated_config()
    config.graph_options.rewrite_options.custom_optimizers[0] \
        .parameter_map["precision_mode"].s = b"must_keep_origin_dtype"
    config.graph_options.rewrite_options.auto_mixed_precision = RewriterConfig.ON
    out = npu_config_proto(config)
    assert out.graph_options.rewrite_options.auto_mixed_precision == RewriterConfig.OFF


def test_run_config_init_and_option_helpers():
    run_config = npu_run_config_init(tf.estimator.RunConfig(model_dir="/tmp/x"))
    assert run_config.model_dir == "/tmp/x"
    assert read_npu_optimizer_options(run_config.session_config) == {}
    names = [c.name for c in
             run_config.session_config.graph_options.rewrite_options.custom_optimizers]
    assert names == ["NpuOptimizer"]
    assert isinstance(npu_run_config_init(), tf.estimator.RunConfig)
    off = tf.compat.v1.OptimizerOptions.OFF
    assert npu_graph_options().optimizer_options.global_jit_level == off
    assert npu_optimizer_options().global_jit_level == off
    assert np.isscalar(off)
