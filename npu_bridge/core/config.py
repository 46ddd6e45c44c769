"""NPURunConfig and the small config records the original adapter's scripts pass to it.

Everything that changes how training runs here (iterations_per_loop, model_dir,
checkpoint and summary cadence, session_config, precision_mode) is honoured,
and so are the debugging switches (dump_config, enable_exception_dump,
profiling_config; see ``npu_bridge.debugging``).
Options that only steer Ascend's graph compiler or memory planner
are accepted so migrated scripts keep working, and logged once as having no
effect here; none is silently reinterpreted.
"""

import math
import numbers

import tensorflow as tf
from tensorflow_estimator.python.estimator import run_config as run_config_lib

from npu_bridge.debugging.capture import keep_every_op
from npu_bridge.debugging.profile import parse_profiling_options
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.mixed_precision.precision_mode import apply_precision_mode
from npu_bridge.migration.session_helpers import read_npu_optimizer_options

PRECISION_MODES = ("allow_fp32_to_fp16", "force_fp16", "must_keep_origin_dtype",
                   "allow_mix_precision")


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError("%s must be True or False; got %r." % (name, value))


# Loop lengths and step counts run through int32 placeholders in the graph.
_INT32_LIMIT = 2 ** 31


def _check_positive_int(name, value, low=1, high=_INT32_LIMIT):
    """``value`` as an int in [low, high); numpy integers are accepted."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be %s int; got %s %r."
                        % (name, "a positive" if low == 1 else "a non-negative",
                           type(value).__name__, value))
    if value < low:
        raise ValueError("%s must be a %s int; got %d."
                         % (name, "positive" if low == 1 else "non-negative", value))
    if value >= high:
        raise ValueError("%s must be below %d (it runs through int32 in the graph); got %d."
                         % (name, high, value))
    return int(value)


def _check_optional_int(name, value, low=1):
    return None if value is None else _check_positive_int(name, value, low)


def _check_optional_seconds(name, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number of seconds; got %s %r."
                        % (name, type(value).__name__, value))
    if not math.isfinite(value) or value < 0:
        raise ValueError("%s must be a finite number of seconds >= 0; got %r."
                         % (name, value))
    return value


class ProfilingConfig(object):
    """Profiling switch: TensorFlow's profiler traces a few steps for TensorBoard.

    ``profiling_options``: the original's JSON (string or dict); "output" and
    "steps" (e.g. "10-19") are honoured, Ascend's other keys have no effect.
    See ``npu_bridge.debugging.profile``.
    """

    def __init__(self, enable_profiling=False, profiling_options=None):
        _check_bool("ProfilingConfig enable_profiling", enable_profiling)
        parse_profiling_options(profiling_options)  # fails early on bad JSON or steps
        self._enable_profiling = enable_profiling
        self._profiling_options = profiling_options

    @property
    def enable_profiling(self):
        return self._enable_profiling

    @property
    def profiling_options(self):
        return self._profiling_options


class DumpConfig(object):
    """Op dumps (``enable_dump``) and overflow detection (``enable_dump_debug``).

    ``dump_step`` names steps as "0|5|10-20" (None: every step); ``dump_mode``
    is "output", "input" or "all"; files go under ``dump_path`` (default
    model_dir/npu_dump). ``dump_debug_mode`` (which Ascend overflow kinds) is
    accepted; every inf/nan counts here. See ``npu_bridge.debugging``.
    """

    def __init__(self, enable_dump=False, dump_path=None, dump_step=None,
                 dump_mode="output", enable_dump_debug=False, dump_debug_mode="all"):
        _check_bool("DumpConfig enable_dump", enable_dump)
        _check_bool("DumpConfig enable_dump_debug", enable_dump_debug)
        if dump_mode not in ("input", "output", "all"):
            raise ValueError("DumpConfig dump_mode must be 'input', 'output' or 'all'; got %r."
                             % (dump_mode,))
        if dump_debug_mode not in ("aicore_overflow", "atomic_overflow", "all"):
            raise ValueError("DumpConfig dump_debug_mode must be 'aicore_overflow', "
                             "'atomic_overflow' or 'all'; got %r." % (dump_debug_mode,))
        if dump_step is not None:
            StepRanges(dump_step, what="DumpConfig dump_step")
        self._enable_dump = enable_dump
        self._dump_path = dump_path
        self._dump_step = dump_step
        self._dump_mode = dump_mode
        self._enable_dump_debug = enable_dump_debug
        self._dump_debug_mode = dump_debug_mode

    enable_dump = property(lambda self: self._enable_dump)
    dump_path = property(lambda self: self._dump_path)
    dump_step = property(lambda self: self._dump_step)
    dump_mode = property(lambda self: self._dump_mode)
    enable_dump_debug = property(lambda self: self._enable_dump_debug)
    dump_debug_mode = property(lambda self: self._dump_debug_mode)

    @property
    def captures_ops(self):
        """True when a run watches ops (dumps or overflow checks)."""
        return self._enable_dump or self._enable_dump_debug


class DynamicInputConfig(object):
    """Ascend dynamic-shape gears; recorded, no effect (TensorFlow handles shapes itself)."""

    def __init__(self, input_shape, dynamic_dims, dynamic_node_type):
        self._input_shape = input_shape
        self._dynamic_dims = dynamic_dims
        self._dynamic_node_type = dynamic_node_type


# name -> default of every option that only means something on Ascend hardware.
ASCEND_ONLY_DEFAULTS = {
    "enable_data_pre_proc": True,
    "enable_reduce_precision": False, "variable_format_optimize": True,
    "hcom_parallel": False, "graph_memory_max_size": None,
    "variable_memory_max_size": None, "auto_tune_mode": None,
    "stream_max_parallel_num": None, "is_tailing_optimization": False,
    "horovod_mode": False, "op_debug_level": 0, "enable_scope_fusion_passes": None,
    "op_select_implmode": None,
    "optypelist_for_implmode": None, "dynamic_input_config": None, "mstune_mode": None,
    "work_path": None, "buffer_optimize": "l2_optimize", "enable_small_channel": 0,
    "fusion_switch_file": None, "enable_compress_weight": False,
    "compress_weight_conf": None, "op_compiler_cache_mode": None,
    "op_compiler_cache_dir": None, "debug_dir": None, "hcom_multi_mode": False,
    "dynamic_input": False, "dynamic_graph_execute_mode": "dynamic_execute",
    "dynamic_inputs_shape_range": None, "local_rank_id": None,
    "local_device_list": None, "session_device_id": None, "modify_mixlist": None,
    "distribute": None, "train_distribute": None, "eval_distribute": None,
}

_logged_ignored = set()


def _log_ignored_once(options):
    fresh = sorted(set(options) - _logged_ignored)
    if fresh:
        _logged_ignored.update(fresh)
        tf.compat.v1.logging.warning(
            "NPURunConfig: %s only steer(s) Ascend hardware and have no effect on "
            "CPU/GPU; accepted and ignored. Data parallelism here comes from "
            "RANK_SIZE/RANK_ID and NPUDistributedOptimizer.", ", ".join(fresh))


class NPURunConfig(run_config_lib.RunConfig):
    """RunConfig with the Ascend adapter's signature.

    ``iterations_per_loop=N`` makes NPUEstimator run N steps inside one
    ``Session.run`` (an in-graph loop). ``precision_mode`` turns on
    TensorFlow's automatic mixed precision in the session config (see
    ``npu_bridge.mixed_precision.precision_mode``). A session_config whose "NpuOptimizer" entry
    carries iterations_per_loop or precision_mode supplies them when the
    arguments are left at their defaults. ``mix_compile_mode=True`` (part of the
    graph on the host) keeps N at 1, as on Ascend. When neither
    save_checkpoints_steps nor save_checkpoints_secs is given a checkpoint is
    written every 100 steps.
    """

    def __init__(self, iterations_per_loop=1, profiling_config=None, model_dir=None,
                 tf_random_seed=None, save_summary_steps=0, save_checkpoints_steps=None,
                 save_checkpoints_secs=None, session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 distribute=None, enable_data_pre_proc=True, precision_mode=None,
                 enable_reduce_precision=False, variable_format_optimize=True,
                 mix_compile_mode=False, hcom_parallel=False, graph_memory_max_size=None,
                 variable_memory_max_size=None, auto_tune_mode=None, dump_config=None,
                 stream_max_parallel_num=None, is_tailing_optimization=False,
                 horovod_mode=False, graph_run_mode=1, op_debug_level=0,
                 enable_scope_fusion_passes=None, enable_exception_dump=0,
                 op_select_implmode=None, optypelist_for_implmode=None,
                 dynamic_input_config=None, mstune_mode=None, work_path=None,
                 buffer_optimize="l2_optimize", enable_small_channel=0,
                 fusion_switch_file=None, enable_compress_weight=False,
                 compress_weight_conf=None, op_compiler_cache_mode=None,
                 op_compiler_cache_dir=None, debug_dir=None, hcom_multi_mode=False,
                 dynamic_input=False, dynamic_graph_execute_mode="dynamic_execute",
                 dynamic_inputs_shape_range=None, train_distribute=None,
                 eval_distribute=None, local_rank_id=None, local_device_list=None,
                 session_device_id=None, modify_mixlist=None):
        # A migrated session_config may carry the NpuOptimizer parameter_map;
        # explicit arguments win over it.
        from_session = read_npu_optimizer_options(session_config)
        if iterations_per_loop == 1 and "iterations_per_loop" in from_session:
            iterations_per_loop = from_session["iterations_per_loop"]
        if precision_mode is None and from_session.get("precision_mode"):
            precision_mode = from_session["precision_mode"]
        iterations_per_loop = _check_positive_int("iterations_per_loop", iterations_per_loop)
        save_checkpoints_steps = _check_optional_int("save_checkpoints_steps",
                                                     save_checkpoints_steps, 0)
        save_checkpoints_secs = _check_optional_seconds("save_checkpoints_secs",
                                                        save_checkpoints_secs)
        save_summary_steps = _check_optional_int("save_summary_steps", save_summary_steps, 0)
        log_step_count_steps = _check_optional_int("log_step_count_steps",
                                                   log_step_count_steps)
        keep_checkpoint_max = _check_optional_int("keep_checkpoint_max", keep_checkpoint_max, 0)
        keep_checkpoint_every_n_hours = _check_optional_seconds(
            "keep_checkpoint_every_n_hours", keep_checkpoint_every_n_hours)
        if tf_random_seed is not None:
            tf_random_seed = _check_positive_int("tf_random_seed", tf_random_seed, 0)
        _check_bool("mix_compile_mode", mix_compile_mode)
        _check_bool("horovod_mode", horovod_mode)
        if mix_compile_mode and iterations_per_loop != 1:
            raise ValueError(
                "mix_compile_mode=True runs part of the graph on the host, so "
                "iterations_per_loop must be 1; got %d." % iterations_per_loop)
        if graph_run_mode not in (0, 1):
            raise ValueError("graph_run_mode must be 0 (inference) or 1 (training); got %r."
                             % (graph_run_mode,))
        if dump_config is not None and not isinstance(dump_config, DumpConfig):
            raise TypeError("dump_config must be a DumpConfig; got %s."
                            % type(dump_config).__name__)
        if profiling_config is not None and not isinstance(profiling_config, ProfilingConfig):
            raise TypeError("profiling_config must be a ProfilingConfig; got %s."
                            % type(profiling_config).__name__)
        if dynamic_input_config is not None and not isinstance(
                dynamic_input_config, DynamicInputConfig):
            raise TypeError("dynamic_input_config must be a DynamicInputConfig; got %s."
                            % type(dynamic_input_config).__name__)
        if precision_mode is not None and precision_mode not in PRECISION_MODES:
            raise ValueError("precision_mode must be one of %s; got %r."
                             % (", ".join(PRECISION_MODES), precision_mode))
        if enable_exception_dump not in (0, 1, 2):
            raise ValueError("enable_exception_dump must be 0 (off), 1 or 2 (on); got %r."
                             % (enable_exception_dump,))
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            save_checkpoints_steps = 100
        if enable_exception_dump or (dump_config is not None and dump_config.captures_ops):
            # Dumps name the graph's own ops: no Grappler fusing or folding.
            session_config = keep_every_op(
                session_config or tf.compat.v1.ConfigProto(allow_soft_placement=True))
        if precision_mode is not None:
            session_config = apply_precision_mode(
                session_config or tf.compat.v1.ConfigProto(allow_soft_placement=True),
                precision_mode)

        given = dict(locals())
        ignored = [name for name, default in ASCEND_ONLY_DEFAULTS.items()
                   if given[name] is not default and given[name] != default]
        _log_ignored_once(ignored)

        self._iterations_per_loop = iterations_per_loop
        self._mix_compile_mode = mix_compile_mode
        self._precision_mode = precision_mode
        self._graph_run_mode = graph_run_mode
        self._dump_config = dump_config
        self._profiling_config = profiling_config
        self._enable_exception_dump = enable_exception_dump
        self._ascend_options = {name: given[name] for name in ASCEND_ONLY_DEFAULTS}

        super(NPURunConfig, self).__init__(
            model_dir=model_dir, tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs,
            session_config=session_config, keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps)

    @property
    def iterations_per_loop(self):
        return self._iterations_per_loop

    @property
    def mix_compile_mode(self):
        return self._mix_compile_mode

    @property
    def precision_mode(self):
        return self._precision_mode

    @property
    def graph_run_mode(self):
        return self._graph_run_mode

    @property
    def dump_config(self):
        return self._dump_config

    @property
    def profiling_config(self):
        return self._profiling_config

    @property
    def enable_exception_dump(self):
        return self._enable_exception_dump

    def ascend_option(self, name):
        """The value given for an Ascend-only option (kept for scripts that read it back)."""
        if name in ("dump_config", "profiling_config", "enable_exception_dump"):
            return getattr(self, name)  # honoured now; still readable this way
        return self._ascend_options[name]
