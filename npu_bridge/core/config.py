"""NPURunConfig and the small config records the original adapter's scripts pass to it.

Every option of ``NPURunConfig`` is one row of ``OPTIONS`` (name, default,
check, effect, what it does), in the original signature's order. The table
makes the signature, checks each value, says which options are logged as
having no effect, gives the repr and writes ``docs/run_config.md``
(``python -m npu_bridge.core.config``); a new option is one row.

Effects: ``HONOURED`` options change how training runs here (iterations_per_loop,
model_dir, checkpoint and summary cadence, session_config, precision_mode, the
debugging switches); ``KEPT`` ones are checked and readable but have nothing
to steer on CPU/GPU; ``NO_EFFECT`` ones only steer Ascend's graph compiler or
memory planner: accepted so migrated scripts keep working, kept
(``config.ascend_option(name)``), and logged once when given; none is silently
reinterpreted.
"""

import collections
import inspect
import logging

import tensorflow as tf

from npu_bridge.common.checks import (
    check_bool, check_choice, check_int, check_optional_int, check_optional_seconds,
    check_type)
from npu_bridge.common.log_once import first_time
from npu_bridge.core.session_config import read_npu_optimizer_options, run_session_config
from npu_bridge.debugging.profile import parse_profiling_options
from npu_bridge.debugging.step_ranges import StepRanges
from npu_bridge.mixed_precision.precision_mode import PRECISION_MODES

class ProfilingConfig(object):
    """Profiling switch: TensorFlow's profiler traces a few steps for TensorBoard.

    ``profiling_options``: the original's JSON (string or dict); "output" and
    "steps" (e.g. "10-19") are honoured, Ascend's other keys have no effect.
    See ``npu_bridge.debugging.profile``.
    """

    def __init__(self, enable_profiling=False, profiling_options=None):
        check_bool("ProfilingConfig enable_profiling", enable_profiling)
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
        check_bool("DumpConfig enable_dump", enable_dump)
        check_bool("DumpConfig enable_dump_debug", enable_dump_debug)
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


HONOURED, KEPT, NO_EFFECT = "honoured", "kept", "no effect"

Option = collections.namedtuple("Option", ["name", "default", "check", "effect", "doc"])


def _optional(check):
    return lambda name, value: None if value is None else check(name, value)


def _instance_of(cls):
    return _optional(lambda name, value: check_type(name, value, cls))


def _any(name, value):
    return value


_non_negative = lambda name, value: check_optional_int(name, value, low=0)  # noqa: E731
_session_config = _optional(lambda name, value: check_type(
    name, value, tf.compat.v1.ConfigProto, "a tf.compat.v1.ConfigProto or None"))

# The original signature, in its order. Checks return the value to keep.
OPTIONS = (
    Option("iterations_per_loop", 1, check_int, HONOURED,
           "training or eval steps per Session.run (the device loop); a positive int below 2**31"),
    Option("profiling_config", None, _instance_of(ProfilingConfig), HONOURED,
           "a ProfilingConfig: TensorFlow's profiler over a step window"),
    Option("model_dir", None, _any, HONOURED, "checkpoints and summaries"),
    Option("tf_random_seed", None, _non_negative, HONOURED, "graph-level seed; an int >= 0"),
    Option("save_summary_steps", 0, _non_negative, HONOURED, "an int >= 0"),
    Option("save_checkpoints_steps", None, _non_negative, HONOURED,
           "an int >= 0; runs of the device loop end on its multiples; with neither this "
           "nor save_checkpoints_secs: every 100 steps"),
    Option("save_checkpoints_secs", None, check_optional_seconds, HONOURED,
           "a finite number of seconds >= 0"),
    Option("session_config", None, _session_config, HONOURED,
           "a tf.compat.v1.ConfigProto; its NpuOptimizer entry may carry "
           "iterations_per_loop and precision_mode; NPUEstimator's sessions add "
           "Grappler settings where it leaves them at their defaults "
           "(`core/session_config.estimator_session_config`)"),
    Option("keep_checkpoint_max", 5, _non_negative, HONOURED, "an int >= 0"),
    Option("keep_checkpoint_every_n_hours", 10000, check_optional_seconds, HONOURED,
           "a finite number >= 0"),
    Option("log_step_count_steps", 100, check_optional_int, HONOURED,
           "loss and steps/s logged every this many steps; a positive int"),
    Option("distribute", None, _any, NO_EFFECT, "ranks come from RANK_SIZE/RANK_ID"),
    Option("enable_data_pre_proc", True, check_bool, NO_EFFECT,
           "True or False; input pipelines run as TensorFlow runs them"),
    Option("precision_mode", None, _optional(lambda name, value: check_choice(
        name, value, PRECISION_MODES)), HONOURED,
           "TensorFlow's automatic mixed precision; one of " + ", ".join(PRECISION_MODES)),
    Option("enable_reduce_precision", False, _any, NO_EFFECT, "Ascend compiler"),
    Option("variable_format_optimize", True, _any, NO_EFFECT, "Ascend compiler"),
    Option("mix_compile_mode", False, check_bool, HONOURED,
           "True or False; True (part of the graph on the host) needs iterations_per_loop 1"),
    Option("hcom_parallel", False, _any, NO_EFFECT, "Ascend collectives"),
    Option("graph_memory_max_size", None, _any, NO_EFFECT, "Ascend memory"),
    Option("variable_memory_max_size", None, _any, NO_EFFECT, "Ascend memory"),
    Option("auto_tune_mode", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("dump_config", None, _instance_of(DumpConfig), HONOURED,
           "a DumpConfig: op dumps and overflow checks"),
    Option("stream_max_parallel_num", None, _any, NO_EFFECT, "Ascend streams"),
    Option("is_tailing_optimization", False, _any, NO_EFFECT, "Ascend collectives"),
    Option("horovod_mode", False, check_bool, NO_EFFECT, "True or False"),
    Option("graph_run_mode", 1, lambda name, value: check_choice(
        name, value, (0, 1), "0 (inference) or 1 (training)"), KEPT,
           "0 (inference) or 1 (training)"),
    Option("op_debug_level", 0, _any, NO_EFFECT, "Ascend compiler"),
    Option("enable_scope_fusion_passes", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("enable_exception_dump", 0, lambda name, value: check_choice(
        name, value, (0, 1, 2), "0 (off), 1 or 2 (on)"), HONOURED,
           "0 (off), 1 or 2: overflow checks at every step"),
    Option("op_select_implmode", None, _any, NO_EFFECT, "Ascend kernels"),
    Option("optypelist_for_implmode", None, _any, NO_EFFECT, "Ascend kernels"),
    Option("dynamic_input_config", None, _instance_of(DynamicInputConfig), NO_EFFECT,
           "a DynamicInputConfig; TensorFlow handles shapes itself"),
    Option("mstune_mode", None, _any, NO_EFFECT, "Ascend tuning"),
    Option("work_path", None, _any, NO_EFFECT, "Ascend tuning"),
    Option("buffer_optimize", "l2_optimize", _any, NO_EFFECT, "Ascend memory"),
    Option("enable_small_channel", 0, _any, NO_EFFECT, "Ascend compiler"),
    Option("fusion_switch_file", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("enable_compress_weight", False, _any, NO_EFFECT, "Ascend compiler"),
    Option("compress_weight_conf", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("op_compiler_cache_mode", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("op_compiler_cache_dir", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("debug_dir", None, _any, NO_EFFECT, "Ascend compiler"),
    Option("hcom_multi_mode", False, _any, NO_EFFECT, "Ascend collectives"),
    Option("dynamic_input", False, _any, NO_EFFECT, "Ascend dynamic shapes"),
    Option("dynamic_graph_execute_mode", "dynamic_execute", _any, NO_EFFECT,
           "Ascend dynamic shapes"),
    Option("dynamic_inputs_shape_range", None, _any, NO_EFFECT, "Ascend dynamic shapes"),
    Option("train_distribute", None, _any, NO_EFFECT, "ranks come from RANK_SIZE/RANK_ID"),
    Option("eval_distribute", None, _any, NO_EFFECT, "ranks come from RANK_SIZE/RANK_ID"),
    Option("local_rank_id", None, _any, NO_EFFECT, "Ascend devices"),
    Option("local_device_list", None, _any, NO_EFFECT, "Ascend devices"),
    Option("session_device_id", None, _any, NO_EFFECT, "Ascend devices"),
    Option("modify_mixlist", None, _any, NO_EFFECT, "Ascend mixed precision lists"),
)
_BY_NAME = {option.name: option for option in OPTIONS}

# name -> default of every option that only means something on Ascend hardware.
ASCEND_ONLY_DEFAULTS = {o.name: o.default for o in OPTIONS if o.effect == NO_EFFECT}

# Options the stock RunConfig holds (given to its __init__); the others are ours.
_RUN_CONFIG_OPTIONS = ("model_dir", "tf_random_seed", "save_summary_steps",
                       "save_checkpoints_steps", "save_checkpoints_secs", "session_config",
                       "keep_checkpoint_max", "keep_checkpoint_every_n_hours",
                       "log_step_count_steps")

SIGNATURE = inspect.Signature(
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    + [inspect.Parameter(o.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=o.default)
       for o in OPTIONS])

_log = logging.getLogger("tensorflow")


def _given(value, default):
    return value is not default and value != default


def _checked_options(arguments):
    """{name: value} after each row's check and the checks between options."""
    session_config = _session_config("session_config", arguments["session_config"])
    # A migrated session_config may carry the NpuOptimizer parameter_map;
    # explicit arguments win over it.
    from_session = read_npu_optimizer_options(session_config)
    if arguments["iterations_per_loop"] == 1 and "iterations_per_loop" in from_session:
        arguments["iterations_per_loop"] = from_session["iterations_per_loop"]
    if arguments["precision_mode"] is None and from_session.get("precision_mode"):
        arguments["precision_mode"] = from_session["precision_mode"]
    options = {o.name: o.check(o.name, arguments[o.name]) for o in OPTIONS}
    if options["mix_compile_mode"] and options["iterations_per_loop"] != 1:
        raise ValueError(
            "mix_compile_mode=True runs part of the graph on the host, so "
            "iterations_per_loop must be 1; got %d." % options["iterations_per_loop"])
    if options["save_checkpoints_steps"] is None and options["save_checkpoints_secs"] is None:
        options["save_checkpoints_steps"] = 100
    dump = options["dump_config"]
    options["session_config"] = run_session_config(
        options["session_config"], options["precision_mode"],
        keep_ops=bool(options["enable_exception_dump"] or (dump is not None
                                                           and dump.captures_ops)))
    return options


def _log_no_effect(options):
    given = [o.name for o in OPTIONS
             if o.effect == NO_EFFECT and _given(options[o.name], o.default)]
    fresh = first_time("NPURunConfig." + name for name in given)
    if fresh:
        _log.warning(
            "NPURunConfig: %s only steer(s) Ascend hardware and have no effect on "
            "CPU/GPU; accepted and ignored. Data parallelism here comes from "
            "RANK_SIZE/RANK_ID and NPUDistributedOptimizer.",
            ", ".join(name.split(".", 1)[1] for name in fresh))


class NPURunConfig(tf.estimator.RunConfig):
    """RunConfig with the Ascend adapter's signature (``OPTIONS``, in its order).

    ``iterations_per_loop=N`` makes NPUEstimator run N steps inside one
    ``Session.run`` (an in-graph loop). ``precision_mode`` turns on
    TensorFlow's automatic mixed precision in the session config (see
    ``npu_bridge.mixed_precision.precision_mode``). A session_config whose "NpuOptimizer" entry
    carries iterations_per_loop or precision_mode supplies them when the
    arguments are left at their defaults. ``mix_compile_mode=True`` (part of the
    graph on the host) keeps N at 1, as on Ascend. When neither
    save_checkpoints_steps nor save_checkpoints_secs is given a checkpoint is
    written every 100 steps. Options of ours (not RunConfig's) that are honoured
    or kept are read back as properties of the same name.
    """

    def __init__(*args, **kwargs):
        bound = SIGNATURE.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        self = arguments.pop("self")
        options = _checked_options(arguments)
        _log_no_effect(options)
        self._options = {name: value for name, value in options.items()
                         if name not in _RUN_CONFIG_OPTIONS}
        super(NPURunConfig, self).__init__(
            **{name: options[name] for name in _RUN_CONFIG_OPTIONS})

    __init__.__signature__ = SIGNATURE

    def __repr__(self):
        given = ["%s=%r" % (o.name, self._value(o.name)) for o in OPTIONS
                 if _given(self._value(o.name), o.default)]
        return "NPURunConfig(%s)" % ", ".join(given)

    def _value(self, name):
        return self._options[name] if name in self._options else getattr(self, name)

    def ascend_option(self, name):
        """The value given for an option of ours, e.g. an Ascend-only one (kept for
        scripts that read it back)."""
        if name not in self._options:
            raise KeyError("ascend_option: %r is not an NPURunConfig option of the "
                           "Ascend adapter; expected one of %s."
                           % (name, ", ".join(sorted(self._options))))
        return self._options[name]


def _option_property(name):
    return property(lambda self: self._options[name], doc=_BY_NAME[name].doc)


for _option in OPTIONS:
    if _option.effect != NO_EFFECT and _option.name not in _RUN_CONFIG_OPTIONS:
        setattr(NPURunConfig, _option.name, _option_property(_option.name))


def markdown():
    """The options as the Markdown table of ``docs/run_config.md``."""
    lines = ["| option | default | effect here | expected, and what it does |",
             "| --- | --- | --- | --- |"]
    for o in OPTIONS:
        lines.append("| `%s` | `%r` | %s | %s |" % (o.name, o.default, o.effect, o.doc))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
