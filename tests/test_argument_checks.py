"""Arguments that would hang or fail late are refused where they are given, naming themselves."""

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_model_fn
from npu_bridge.npu_init import (ExponentialUpdateLossScaleManager, FixedLossScaleManager,
                                 NPUEstimator, NPUEstimatorSpec, NPURunConfig)

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("value", [NAN, INF, -INF, 1e39, 0.5])
def test_fixed_loss_scale_must_be_finite_and_fit_float32(value):
    with pytest.raises(ValueError, match="FixedLossScaleManager loss_scale"):
        FixedLossScaleManager(value)


@pytest.mark.parametrize("name,value", [
    ("init_loss_scale", NAN), ("init_loss_scale", INF), ("init_loss_scale", 1e39),
    ("incr_ratio", NAN), ("incr_ratio", INF), ("decr_ratio", NAN), ("decr_ratio", 0.0),
])
def test_exponential_loss_scale_arguments_must_be_finite(name, value):
    kwargs = dict(init_loss_scale=2 ** 10, incr_every_n_steps=100)
    kwargs[name] = value
    with pytest.raises(ValueError, match="ExponentialUpdateLossScaleManager %s" % name):
        ExponentialUpdateLossScaleManager(**kwargs)


def test_loss_scale_managers_accept_good_values():
    assert FixedLossScaleManager(np.float32(128)).get_enable_overflow_check()
    ExponentialUpdateLossScaleManager(2 ** 32, 1000, decr_every_n_nan_or_inf=np.int64(2))


@pytest.mark.parametrize("kwargs,error,name", [
    (dict(iterations_per_loop=2 ** 31), ValueError, "iterations_per_loop"),
    (dict(iterations_per_loop=2.0), TypeError, "iterations_per_loop"),
    (dict(save_checkpoints_steps=1.5), TypeError, "save_checkpoints_steps"),
    (dict(save_checkpoints_steps=-1), ValueError, "save_checkpoints_steps"),
    (dict(save_checkpoints_secs=NAN), ValueError, "save_checkpoints_secs"),
    (dict(save_checkpoints_secs="60"), TypeError, "save_checkpoints_secs"),
    (dict(log_step_count_steps=0), ValueError, "log_step_count_steps"),
    (dict(keep_checkpoint_max=-1), ValueError, "keep_checkpoint_max"),
    (dict(keep_checkpoint_every_n_hours=INF), ValueError, "keep_checkpoint_every_n_hours"),
    (dict(save_summary_steps=0.5), TypeError, "save_summary_steps"),
    (dict(tf_random_seed="1"), TypeError, "tf_random_seed"),
])
def test_run_config_refuses_bad_values(kwargs, error, name):
    with pytest.raises(error, match=name):
        NPURunConfig(**kwargs)


def test_run_config_takes_numpy_ints():
    config = NPURunConfig(iterations_per_loop=np.int64(10), save_checkpoints_steps=np.int32(20))
    assert config.iterations_per_loop == 10 and type(config.iterations_per_loop) is int
    assert config.save_checkpoints_steps == 20


def test_model_dir_spelled_with_a_trailing_slash_is_the_same(tmp_path):
    est = NPUEstimator(linear_model_fn(None), model_dir=str(tmp_path) + "/",
                       config=NPURunConfig(model_dir=str(tmp_path)))
    assert est.model_dir == str(tmp_path)
    with pytest.raises(ValueError, match="model_dir is given twice"):
        NPUEstimator(linear_model_fn(None), model_dir=str(tmp_path / "other"),
                     config=NPURunConfig(model_dir=str(tmp_path)))


def test_step_counts_must_be_positive_ints(tmp_model_dir):
    est = NPUEstimator(linear_model_fn(None), config=NPURunConfig(
        iterations_per_loop=4, model_dir=tmp_model_dir), params={"host_logdir": tmp_model_dir})
    with pytest.raises(TypeError, match=r"evaluate\(\) steps"):
        est.evaluate(dataset_input_fn(), steps=2.5)
    with pytest.raises(TypeError, match=r"train\(\) steps"):
        est.train(dataset_input_fn(), steps=2.5)
    with pytest.raises(ValueError, match=r"train\(\) max_steps|max_steps"):
        est.train(dataset_input_fn(), max_steps=0)


def test_host_call_without_tensors_or_with_a_sparse_tensor_is_refused():
    with tf.Graph().as_default():
        loss = tf.constant(1.0)
        with pytest.raises(ValueError, match="at least one tensor"):
            NPUEstimatorSpec("train", loss=loss, train_op=tf.no_op(),
                             host_call=(lambda: [], []))
        sparse = tf.SparseTensor([[0]], [1.0], [3])
        with pytest.raises(TypeError, match=r"host_call\[1\]\['x'\] is a SparseTensor"):
            NPUEstimatorSpec("train", loss=loss, train_op=tf.no_op(),
                             host_call=(lambda x: [], {"x": sparse}))


def test_hccl_ops_refuse_non_int_counts():
    from npu_bridge.hccl import hccl_ops
    with tf.Graph().as_default():
        x = tf.ones([2])
        with pytest.raises(TypeError, match="fusion must be an int"):
            hccl_ops.allreduce(x, "sum", fusion=1.5)
        with pytest.raises(TypeError, match="fusion_id must be an int"):
            hccl_ops.broadcast([x], 0, fusion_id="0")
        with pytest.raises(TypeError, match="rank_size must be an int"):
            hccl_ops.allgather(x, rank_size=1.0)
        assert hccl_ops.allreduce(x, "sum", fusion=np.int64(0)).shape == [2]


def test_launcher_refuses_bad_arguments():
    from npu_bridge.launch import run
    with pytest.raises(ValueError, match="--nproc"):
        run(["true"], 0)
    with pytest.raises(ValueError, match="--grace"):
        run(["true"], 1, grace=float("nan"))
    with pytest.raises(ValueError, match="--signal-grace"):
        run(["true"], 1, signal_grace=-1)
