"""NPURunConfig's options come from one table: signature, checks, repr and docs agree with it."""

import inspect
import os

import pytest
import tensorflow as tf

from npu_bridge.core import config as config_lib
from npu_bridge.device_loop.plan import plan_evaluation, plan_training
from npu_bridge.npu_init import DumpConfig, NPURunConfig

# The original adapter's signature (REFERENCE.md), with newer releases' modify_mixlist.
ORIGINAL = (
    "iterations_per_loop=1, profiling_config=None, model_dir=None, tf_random_seed=None, "
    "save_summary_steps=0, save_checkpoints_steps=None, save_checkpoints_secs=None, "
    "session_config=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000, "
    "log_step_count_steps=100, distribute=None, enable_data_pre_proc=True, "
    "precision_mode=None, enable_reduce_precision=False, variable_format_optimize=True, "
    "mix_compile_mode=False, hcom_parallel=False, graph_memory_max_size=None, "
    "variable_memory_max_size=None, auto_tune_mode=None, dump_config=None, "
    "stream_max_parallel_num=None, is_tailing_optimization=False, horovod_mode=False, "
    "graph_run_mode=1, op_debug_level=0, enable_scope_fusion_passes=None, "
    "enable_exception_dump=0, op_select_implmode=None, optypelist_for_implmode=None, "
    "dynamic_input_config=None, mstune_mode=None, work_path=None, "
    "buffer_optimize='l2_optimize', enable_small_channel=0, fusion_switch_file=None, "
    "enable_compress_weight=False, compress_weight_conf=None, op_compiler_cache_mode=None, "
    "op_compiler_cache_dir=None, debug_dir=None, hcom_multi_mode=False, dynamic_input=False, "
    "dynamic_graph_execute_mode='dynamic_execute', dynamic_inputs_shape_range=None, "
    "train_distribute=None, eval_distribute=None, local_rank_id=None, "
    "local_device_list=None, session_device_id=None, modify_mixlist=None")


def test_signature_is_the_original_and_positional_arguments_work():
    assert str(inspect.signature(NPURunConfig)) == "(%s)" % ORIGINAL
    config = NPURunConfig(7, None, "some/dir")
    assert config.iterations_per_loop == 7 and config.model_dir == "some/dir"
    with pytest.raises(TypeError, match="iterations_per_loop"):
        NPURunConfig(3, iterations_per_loop=4)
    with pytest.raises(TypeError, match="no_such_option"):
        NPURunConfig(no_such_option=1)


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(session_config={"allow_soft_placement": True}), TypeError,
     r"session_config must be a tf.compat.v1.ConfigProto or None; got dict"),
    (dict(enable_data_pre_proc="yes"), TypeError,
     r"enable_data_pre_proc must be True or False; got 'yes'"),
    (dict(enable_exception_dump=3), ValueError,
     r"enable_exception_dump must be 0 \(off\), 1 or 2 \(on\); got 3"),
    (dict(tf_random_seed=-1), ValueError, r"tf_random_seed must be a non-negative int; got -1"),
])
def test_checks_name_the_option_the_expectation_and_the_value(kwargs, error, message):
    with pytest.raises(error, match=message):
        NPURunConfig(**kwargs)


def test_options_of_ours_read_back_and_show_in_the_repr():
    dump = DumpConfig(enable_dump=True)
    config = NPURunConfig(iterations_per_loop=4, dump_config=dump, graph_run_mode=0,
                          enable_small_channel=1, enable_data_pre_proc=False)
    assert (config.iterations_per_loop, config.dump_config, config.graph_run_mode) == (4, dump, 0)
    assert config.ascend_option("enable_small_channel") == 1
    assert config.ascend_option("enable_data_pre_proc") is False
    text = repr(config)
    assert text.startswith("NPURunConfig(iterations_per_loop=4, ")
    assert "enable_small_channel=1" in text and "enable_data_pre_proc=False" in text
    assert "hcom_parallel" not in text  # left at its default
    with pytest.raises(KeyError, match="no_such_option"):
        config.ascend_option("no_such_option")
    # Every row is honoured, kept or has no effect; every no-effect row is readable.
    for option in config_lib.OPTIONS:
        assert option.effect in (config_lib.HONOURED, config_lib.KEPT, config_lib.NO_EFFECT)
        if option.effect == config_lib.NO_EFFECT:
            assert NPURunConfig().ascend_option(option.name) == option.default


def test_docs_table_is_the_one_the_options_print():
    path = os.path.join(os.path.dirname(__file__), os.pardir, "docs", "run_config.md")
    with open(path) as f:
        assert config_lib.markdown() in f.read()


def test_the_plan_is_made_from_the_config_and_the_call():
    config = NPURunConfig(iterations_per_loop=10, save_checkpoints_steps=25,
                          log_step_count_steps=50)
    plan = plan_training(config, max_steps=60)
    assert (plan.iterations, plan.checkpoint_every, plan.log_every, plan.max_steps) == \
        (10, 25, 50, 60)
    # Runs from step 0 to 60: cut at the checkpoints 25 and 50 and at the last step.
    step, sizes = 0, []
    while step < 60:
        sizes.append(plan.next_run_size(step, 60))
        step += sizes[-1]
    assert sizes == [10, 10, 5, 10, 10, 5, 10]
    with pytest.raises(TypeError, match=r"train\(\) steps must be a positive int; got float"):
        plan_training(config, steps=2.5)
    assert plan_evaluation(config, steps=3).steps == 3
    with pytest.raises(ValueError, match=r"evaluate\(\) steps must be a positive int; got 0"):
        plan_evaluation(config, steps=0)
    with pytest.raises(AttributeError):
        plan.iterations = 1  # immutable


def test_session_config_holds_the_precision_and_dump_settings():
    config = NPURunConfig(precision_mode="must_keep_origin_dtype",
                          dump_config=DumpConfig(enable_dump=True),
                          session_config=tf.compat.v1.ConfigProto(log_device_placement=True))
    rewrite = config.session_config.graph_options.rewrite_options
    assert config.session_config.log_device_placement
    assert rewrite.auto_mixed_precision == rewrite.OFF and rewrite.remapping == rewrite.OFF
