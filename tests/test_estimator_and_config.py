"""NPUEstimator's constructor rules, every mode with plain and NPU specs, NPURunConfig checks."""

import os

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn, make_data
from npu_bridge.npu_init import (DumpConfig, NPUEstimator, NPUEstimatorSpec, NPURunConfig,
                                 ProfilingConfig)


def test_config_must_be_an_npu_run_config():
    with pytest.raises(ValueError, match="config must be an NPURunConfig; got RunConfig"):
        NPUEstimator(linear_model_fn(), config=tf.estimator.RunConfig())


def test_model_dir_given_twice_must_agree(tmp_path):
    with pytest.raises(ValueError, match="model_dir is given twice"):
        NPUEstimator(linear_model_fn(), model_dir=str(tmp_path / "a"),
                     config=NPURunConfig(model_dir=str(tmp_path / "b")))
    est = NPUEstimator(linear_model_fn(), model_dir=str(tmp_path / "a"),
                       config=NPURunConfig(model_dir=str(tmp_path / "a")))
    assert est.model_dir == str(tmp_path / "a")
    est = NPUEstimator(linear_model_fn(), model_dir=str(tmp_path / "c"))
    assert est.model_dir == str(tmp_path / "c") and isinstance(est.config, NPURunConfig)


def test_default_config_saves_every_100_steps():
    config = NPURunConfig()
    assert config.save_checkpoints_steps == 100 and config.save_checkpoints_secs is None
    assert config.iterations_per_loop == 1 and config.save_summary_steps == 0
    assert NPURunConfig(save_checkpoints_secs=30).save_checkpoints_steps is None


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(iterations_per_loop=0), ValueError, "iterations_per_loop must be a positive int; got 0"),
    (dict(iterations_per_loop=2.0), TypeError, "iterations_per_loop must be a positive int; got float"),
    (dict(iterations_per_loop=True), TypeError, "iterations_per_loop must be a positive int; got bool"),
    (dict(mix_compile_mode="yes"), TypeError, "mix_compile_mode must be True or False"),
    (dict(horovod_mode=1), TypeError, "horovod_mode must be True or False"),
    (dict(mix_compile_mode=True, iterations_per_loop=3), ValueError,
     "iterations_per_loop must be 1; got 3"),
    (dict(graph_run_mode=2), ValueError, "graph_run_mode must be 0 .* or 1"),
    (dict(dump_config={"enable_dump": True}), TypeError, "dump_config must be a DumpConfig; got dict"),
    (dict(profiling_config=True), TypeError, "profiling_config must be a ProfilingConfig"),
    (dict(dynamic_input_config=[1]), TypeError, "dynamic_input_config must be a DynamicInputConfig"),
    (dict(precision_mode="fp8"), ValueError, "precision_mode must be one of .*got 'fp8'"),
])
def test_run_config_checks(kwargs, error, message):
    with pytest.raises(error, match=message):
        NPURunConfig(**kwargs)


def test_ascend_only_options_are_accepted_and_kept():
    config = NPURunConfig(mix_compile_mode=True, dump_config=DumpConfig(enable_dump=True),
                          profiling_config=ProfilingConfig(enable_profiling=True),
                          hcom_parallel=True, enable_small_channel=1,
                          precision_mode="allow_mix_precision")
    assert config.mix_compile_mode and config.precision_mode == "allow_mix_precision"
    assert config.ascend_option("hcom_parallel") is True
    assert config.ascend_option("enable_small_channel") == 1


def _plain_spec_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features, w)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode, predictions={"y": pred},
            export_outputs={"out": tf.estimator.export.PredictOutput({"y": pred})})
    loss = tf.reduce_mean(tf.square(pred - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _serving_input_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
    return tf.estimator.export.TensorServingInputReceiver(x, {"x": x})


@pytest.mark.parametrize("iterations", [1, 4])
def test_plain_estimator_spec_in_every_mode(tmp_model_dir, iterations):
    est = NPUEstimator(_plain_spec_model_fn, config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=tmp_model_dir))
    est.train(dataset_input_fn(), steps=10)
    assert est.get_variable_value("global_step") == 10
    metrics = est.evaluate(dataset_input_fn(n=16, repeat=False))
    assert metrics["global_step"] == 10 and metrics["loss"] > 0

    x, _ = make_data(8)
    preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(x).batch(4)))
    w = est.get_variable_value("w")
    np.testing.assert_allclose([p["y"][0] for p in preds], (x @ w)[:, 0], rtol=1e-5)

    export_dir = est.export_saved_model(
        os.path.join(tmp_model_dir, "export"),
        _serving_input_fn)
    assert os.path.exists(os.path.join(export_dir, b"saved_model.pb"))


def test_npu_spec_predict_and_export_ignore_host_call(tmp_model_dir):
    est = NPUEstimator(linear_model_fn(), config=NPURunConfig(model_dir=tmp_model_dir),
                       params={"host_logdir": tmp_model_dir + "/host"})
    est.train(dataset_input_fn(), steps=2)
    x, _ = make_data(4)
    preds = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(x).batch(4)))
    assert len(preds) == 4


def test_train_and_evaluate_works(tmp_model_dir):
    est = NPUEstimator(linear_model_fn(), config=NPURunConfig(
        model_dir=tmp_model_dir, iterations_per_loop=5, save_checkpoints_steps=10),
        params={"host_logdir": tmp_model_dir + "/host"})
    result = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(dataset_input_fn(), max_steps=20),
        tf.estimator.EvalSpec(dataset_input_fn(n=16, repeat=False), steps=None, throttle_secs=0))
    assert result[0]["global_step"] == 20


def _npu_session_config(**params):
    from npu_bridge.npu_init import RewriterConfig  # noqa: F401  (exported for scripts)
    config = tf.compat.v1.ConfigProto()
    custom = config.graph_options.rewrite_options.custom_optimizers.add()
    custom.name = "NpuOptimizer"
    for key, value in params.items():
        if isinstance(value, str):
            custom.parameter_map[key].s = value.encode()
        else:
            custom.parameter_map[key].i = value
    return config


def test_npu_optimizer_parameter_map_supplies_defaults():
    config = NPURunConfig(session_config=_npu_session_config(
        iterations_per_loop=10, precision_mode="must_keep_origin_dtype"))
    assert config.iterations_per_loop == 10
    assert config.precision_mode == "must_keep_origin_dtype"
    explicit = NPURunConfig(iterations_per_loop=3, precision_mode="allow_mix_precision",
                            session_config=_npu_session_config(iterations_per_loop=10))
    assert explicit.iterations_per_loop == 3 and explicit.precision_mode == "allow_mix_precision"


def test_precision_mode_reaches_the_session_config():
    from tensorflow.core.protobuf import rewriter_config_pb2
    off = rewriter_config_pb2.RewriterConfig.OFF
    keep = NPURunConfig(precision_mode="must_keep_origin_dtype").session_config
    assert keep.graph_options.rewrite_options.auto_mixed_precision == off
    mixed = NPURunConfig(precision_mode="allow_mix_precision").session_config
    rewrite = mixed.graph_options.rewrite_options
    from npu_bridge.mixed_precision.precision_mode import detect_hardware
    on = rewriter_config_pb2.RewriterConfig.ON
    hardware = detect_hardware()
    assert (rewrite.auto_mixed_precision == on) == (hardware == "gpu")
    assert (rewrite.auto_mixed_precision_onednn_bfloat16 == on) == (hardware == "cpu_bf16")


def test_estimator_sessions_run_one_grappler_round_and_keep_what_the_script_set():
    from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig
    from npu_bridge.npu_init import npu_config_proto
    no_gpu = not tf.config.list_physical_devices("GPU")

    rewrite = NPUEstimator(linear_model_fn()).config.session_config.graph_options.rewrite_options
    # With no config, the stock Estimator's own default: one round of passes.
    assert rewrite.meta_optimizer_iterations == RewriterConfig.ONE
    assert rewrite.disable_tfg_optimizer
    assert (rewrite.layout_optimizer == RewriterConfig.OFF) == no_gpu
    assert (rewrite.memory_optimization == RewriterConfig.NO_MEM_OPT) == no_gpu

    given = npu_config_proto(tf.compat.v1.ConfigProto(log_device_placement=False))
    given.graph_options.rewrite_options.meta_optimizer_iterations = RewriterConfig.TWO
    given.graph_options.rewrite_options.layout_optimizer = RewriterConfig.ON
    config = NPUEstimator(linear_model_fn(), config=NPURunConfig(
        session_config=given, precision_mode="must_keep_origin_dtype")).config.session_config
    rewrite = config.graph_options.rewrite_options
    assert rewrite.meta_optimizer_iterations == RewriterConfig.TWO  # the script's, kept
    assert rewrite.memory_optimization == RewriterConfig.MANUAL  # npu_config_proto's
    assert rewrite.layout_optimizer == RewriterConfig.ON
    assert rewrite.remapping == RewriterConfig.OFF and config.allow_soft_placement
    assert rewrite.auto_mixed_precision == RewriterConfig.OFF
    assert [c.name for c in rewrite.custom_optimizers] == ["NpuOptimizer"]
    # The script's own ConfigProto is not changed.
    assert not given.graph_options.rewrite_options.disable_tfg_optimizer
