"""NPUEstimator: tf.estimator.Estimator with host_call and iterations_per_loop.

What differs from the stock Estimator is only how the graph for one
``Session.run`` is built (``device_loop.ProgramBuilder``) and the hooks that
go with it; sessions, checkpoints, hooks and exports are the stock ones.
"""

import numbers
import os

import tensorflow as tf
from tensorflow_estimator.python.estimator import estimator as estimator_lib
from tensorflow_estimator.python.estimator import model_fn as model_fn_lib
from tensorflow.python.training import training_util

from npu_bridge.core import checkpoint_saver
from npu_bridge.core.config import NPURunConfig
from npu_bridge.core import user_errors
from npu_bridge.core.graceful_stop import GracefulStop
from npu_bridge.debugging import estimator_hooks as _debugging
from npu_bridge.device_loop import loop_hooks
from npu_bridge.device_loop.builder import ProgramBuilder, resource_variables
from npu_bridge.distributed import estimator_support as _ranks
from npu_bridge.distributed.rank_watchdog import watchdog_hooks
from npu_bridge.device_loop.outfeed import HostCallHook, RecordsBeforeCheckpoint

ModeKeys = model_fn_lib.ModeKeys


def _check_steps(name, steps):
    """A step count is None or a positive int (a float such as 2.5 never lands exactly)."""
    if steps is None:
        return
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
        raise TypeError("%s must be a positive int or None; got %s %r."
                        % (name, type(steps).__name__, steps))
    if steps <= 0:
        raise ValueError("%s must be > 0; got %d." % (name, steps))


def _host_hooks(hooks):
    return [h for h in hooks if isinstance(h, HostCallHook)]


def _run_with_host_calls(host_hooks, run):
    """Run ``run()``; a host_call failure wins over the cancellation it caused.

    A Python exception that host_fn or input_fn code raised while the graph ran
    (``user_errors``) is re-raised as itself, chained to TensorFlow's error.
    """
    try:
        return run()
    except Exception as error:
        cause = next((hook.error for hook in host_hooks
                      if hook.error is not None and hook.error is not error), error)
        original = user_errors.original_error(cause)
        if original is not None:
            raise original from cause
        if cause is not error:
            raise cause from error
        raise
    finally:
        for hook in host_hooks:
            hook.shutdown()


class NPUEstimator(estimator_lib.Estimator):
    """Estimator for model_fns written for Ascend's adapter.

    Args:
      model_fn: returns an NPUEstimatorSpec (or a plain EstimatorSpec).
      model_dir: where checkpoints and summaries go; must agree with
        ``config.model_dir`` when both are given.
      config: an NPURunConfig (default: ``NPURunConfig()``).
      params: dict handed to model_fn and input_fn.
      job_start_file: Ascend job-start marker file; accepted, unused here.
      warm_start_from: as for tf.estimator.Estimator.
    """

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None,
                 job_start_file="", warm_start_from=None):
        if config is None:
            config = NPURunConfig()
        if not isinstance(config, NPURunConfig):
            raise ValueError("config must be an NPURunConfig; got %s."
                             % type(config).__name__)
        if model_dir and config.model_dir:
            if os.path.normpath(model_dir) != os.path.normpath(config.model_dir):
                raise ValueError(
                    "model_dir is given twice with different values: %r in NPUEstimator "
                    "and %r in config." % (model_dir, config.model_dir))
            model_dir = None  # the same folder ('x/' and 'x'): the config's spelling
        self._job_start_file = job_start_file
        user_errors.remember_py_func_errors()
        config = _ranks.rank_run_config(config)  # ranks: own server, rank-0-only saving
        super(NPUEstimator, self).__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, params=params,
            warm_start_from=warm_start_from)

    def _assert_members_are_not_overridden(self):
        """NPUEstimator deliberately overrides how train/eval graphs are built."""

    @property
    def _iterations_per_loop(self):
        return getattr(self._config, "iterations_per_loop", 1)

    def _builder(self):
        def call_model_fn(features, labels, mode):
            return self._call_model_fn(features, labels, mode, self.config)
        return ProgramBuilder(call_model_fn, self._iterations_per_loop,
                              checkpoint_every=self._config.save_checkpoints_steps)

    def _create_global_step(self, graph):
        if self._iterations_per_loop == 1:
            return super(NPUEstimator, self)._create_global_step(graph)
        with resource_variables():  # the loop body increments it
            return super(NPUEstimator, self)._create_global_step(graph)

    # ---- training -------------------------------------------------------

    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Estimator.train; with ranks: broadcast hook added, rank 0 saves, all wait for it.

        SIGTERM/SIGINT end training after the current loop with a checkpoint and
        every host_call record, then exit as the signal asks (``graceful_stop``).
        """
        with GracefulStop() as stop:
            result = super(NPUEstimator, self).train(
                input_fn, hooks=_ranks.rank_train_hooks(hooks) + [stop.hook()] + watchdog_hooks(),
                steps=steps,
                max_steps=max_steps,
                saving_listeners=_ranks.rank_saving_listeners(saving_listeners))
            _ranks.after_train()
        stop.raise_if_signalled()
        return result

    def _convert_train_steps_to_hooks(self, steps, max_steps):
        _check_steps("train() steps", steps)
        _check_steps("train() max_steps", max_steps)
        if steps is None and max_steps is None:
            return []
        return [loop_hooks.StepLimitHook(num_steps=steps, last_step=max_steps)]

    def _train_model_default(self, input_fn, hooks, saving_listeners):
        with tf.Graph().as_default() as graph, graph.device(self._device_fn):
            tf.compat.v1.random.set_random_seed(self._config.tf_random_seed)
            global_step = self._create_and_assert_global_step(graph)
            if global_step is not None:
                training_util._get_or_create_global_step_read(graph)  # pylint: disable=protected-access
            program = self._builder().train(self._call_input_fn(input_fn, ModeKeys.TRAIN),
                                            outer_hooks=hooks)
            worker_hooks = list(program.hooks) + _debugging.training_hooks(self._config,
                                                                            self._model_dir)
            if program.looped:
                if not any(isinstance(h, loop_hooks.StepLimitHook) for h in hooks):
                    worker_hooks.append(loop_hooks.CheckpointAlignHook())
                every = self._config.log_step_count_steps
                if every:
                    worker_hooks.append(loop_hooks.LoopLoggingHook(program.spec.loss, every))
                    if self._config.is_chief:
                        worker_hooks.append(tf.compat.v1.train.StepCounterHook(
                            every_n_steps=every, output_dir=self._model_dir))
            return self._train_with_estimator_spec(
                program.spec, worker_hooks, hooks,
                tf.compat.v1.train.get_global_step(graph), saving_listeners)

    def _train_with_estimator_spec(self, estimator_spec, worker_hooks, hooks,
                                   global_step_tensor, saving_listeners):
        looped = bool(tf.compat.v1.get_collection(loop_hooks.LOOP_ITERATIONS))
        config = self._config
        if looped:
            # Logging and step counting are replaced by step-aware hooks.
            self._config = config.replace(log_step_count_steps=None)
        estimator_spec = self._with_checkpoint_saver(estimator_spec, worker_hooks + list(hooks))
        parent = super(NPUEstimator, self)._train_with_estimator_spec
        host_hooks = _host_hooks(worker_hooks)
        for hook in host_hooks:
            hook.marks_restart = True  # a resumed run hides a crashed run's later records
        if host_hooks:  # checkpoints wait until the records they cover are on disk
            saving_listeners = list(saving_listeners or []) + [RecordsBeforeCheckpoint(host_hooks)]
        try:
            return _run_with_host_calls(
                host_hooks,
                lambda: parent(estimator_spec, worker_hooks, hooks,
                               global_step_tensor, saving_listeners))
        finally:
            self._config = config

    def _with_checkpoint_saver(self, spec, hooks):
        """``spec`` with our checkpoint saver first among its chief hooks, where the stock
        Estimator would add its own (none given, and the config saves checkpoints)."""
        given = hooks + list(spec.training_chief_hooks)
        if any(isinstance(h, tf.compat.v1.train.CheckpointSaverHook) for h in given):
            return spec
        saver = checkpoint_saver.saver_hook_for(self._config, self._model_dir, spec.scaffold)
        if saver is None:
            return spec
        return spec._replace(training_chief_hooks=[saver] + list(spec.training_chief_hooks))

    # ---- evaluation -----------------------------------------------------

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Estimator.evaluate; with ranks every rank evaluates rank 0's checkpoint, and
        broadcast hooks among ``hooks`` are dropped (``estimator_support.rank_eval_hooks``)."""
        return super(NPUEstimator, self).evaluate(
            input_fn, steps=steps, hooks=_ranks.rank_eval_hooks(hooks),
            checkpoint_path=checkpoint_path, name=name)

    def _convert_eval_steps_to_hooks(self, steps):
        _check_steps("evaluate() steps", steps)
        return [loop_hooks.EvalStepLimitHook(num_evals=steps)]

    def _call_model_fn_eval(self, input_fn, config):
        program = self._builder().evaluate(self._call_input_fn(input_fn, ModeKeys.EVAL))
        hooks = list(program.hooks) + _debugging.evaluation_hooks(self._config, self._model_dir)
        return (program.spec.scaffold, program.spec.evaluation_hooks, hooks,
                program.update_op, program.eval_dict)

    # ---- prediction -----------------------------------------------------

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Estimator.predict, with the dump and overflow hooks the config asks for."""
        return super(NPUEstimator, self).predict(
            input_fn, predict_keys=predict_keys,
            hooks=list(hooks or []) + _debugging.prediction_hooks(self._config, self._model_dir),
            checkpoint_path=checkpoint_path, yield_single_examples=yield_single_examples)

    def _evaluate_run(self, checkpoint_path, scaffold, update_op, eval_dict,
                      all_hooks, output_dir):
        parent = super(NPUEstimator, self)._evaluate_run
        return _run_with_host_calls(
            _host_hooks(all_hooks),
            lambda: parent(checkpoint_path, scaffold, update_op, eval_dict,
                           all_hooks, output_dir))
