"""NPUEstimator: tf.estimator.Estimator with host_call and iterations_per_loop.

What differs from the stock Estimator is only how the graph for one
``Session.run`` is built (``device_loop.ProgramBuilder``) and the hooks that
go with it; sessions, checkpoints, hooks and exports are the stock ones.
"""

import contextlib
import os

import tensorflow as tf

from npu_bridge.core import checkpoint_saver, checkpoint_shapes, model_dir_lock
from npu_bridge.core.config import NPURunConfig
from npu_bridge.core import user_errors
from npu_bridge.core.session_closing import CloseBehindHook
from npu_bridge.core.session_config import estimator_session_config
from npu_bridge.core.session_runs import CachedRunsHook
from npu_bridge.core.graceful_stop import (EvaluationInterrupted, GracefulStop,
                                           StopEvaluationOnSignalHook, StopOnSignalHook)
from npu_bridge.debugging import estimator_hooks as debugging
from npu_bridge.device_loop import loop_hooks
from npu_bridge.device_loop.builder import ProgramBuilder, resource_variables
from npu_bridge.device_loop.loop_values import marked_run_start_hooks
from npu_bridge.device_loop.outfeed import HostCallHook, RecordsBeforeCheckpoint
from npu_bridge.device_loop.plan import plan_evaluation, plan_training
from npu_bridge.distributed.sessions import estimator_support as _ranks
from npu_bridge.distributed.sessions.rank_watchdog import watchdog_hooks
from npu_bridge.tf_private import estimator as estimator_lib

ModeKeys = tf.estimator.ModeKeys


def _saves_checkpoints(hooks):
    return any(isinstance(h, tf.compat.v1.train.CheckpointSaverHook) for h in hooks)


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
        if model_fn is not None and not callable(model_fn):
            raise TypeError("model_fn must be a callable (features, labels, mode, ...) -> "
                            "EstimatorSpec; got %s %r." % (type(model_fn).__name__, model_fn))
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
        self._plan = None  # the LoopPlan of the train()/evaluate() call in progress
        self._job_config = config  # what the script gave, before this rank's changes
        user_errors.remember_py_func_errors()
        config = _ranks.rank_run_config(config)  # ranks: own server, rank-0-only saving
        config = config.replace(session_config=estimator_session_config(config.session_config))
        super(NPUEstimator, self).__init__(
            model_fn=model_fn, model_dir=model_dir, config=config, params=params,
            warm_start_from=warm_start_from)

    _writes_checkpoints = True  # this rank writes model_dir's checkpoints (set by train())

    def _assert_members_are_not_overridden(self):
        """NPUEstimator deliberately overrides how train/eval graphs are built."""

    @contextlib.contextmanager
    def _running(self, plan):
        """The plan of the train()/evaluate() call in progress (calls may nest:
        train_and_evaluate evaluates from inside train)."""
        outer, self._plan = self._plan, plan
        try:
            yield plan
        finally:
            self._plan = outer

    def _builder(self, plan):
        def call_model_fn(features, labels, mode):
            return self._call_model_fn(features, labels, mode, self.config)
        return ProgramBuilder(call_model_fn, plan)

    def _create_global_step(self, graph):
        plan = self._plan
        if plan is None or not plan.loops:
            return super(NPUEstimator, self)._create_global_step(graph)
        with resource_variables():  # the loop body increments it
            return super(NPUEstimator, self)._create_global_step(graph)

    # ---- training -------------------------------------------------------

    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Estimator.train; with ranks: broadcast hook added, one writer per model_dir.

        The process holds model_dir while it trains (``model_dir_lock``); with
        ranks the lowest rank of those sharing a model_dir writes its checkpoints
        and every rank waits for them at the end (``rank_model_dir``).
        SIGTERM/SIGINT end training after the current loop with a checkpoint and
        every host_call record, then exit as the signal asks (``graceful_stop``).
        A call that ends cleanly returns while its session closes (``session_closing``).
        """
        plan = plan_training(self._config, steps, max_steps,
                             single_steps=debugging.single_steps(self._config),
                             job_config=self._job_config)
        with self._running(plan), GracefulStop() as stop, \
                model_dir_lock.train_claim(self._model_dir) as writes:
            self._writes_checkpoints = writes
            try:
                result = super(NPUEstimator, self).train(
                    input_fn,
                    hooks=_ranks.rank_train_hooks(hooks) + [stop.hook()] + watchdog_hooks(),
                    steps=steps,
                    max_steps=max_steps,
                    saving_listeners=_ranks.rank_saving_listeners(saving_listeners, writes))
            except EvaluationInterrupted:  # an evaluation started from a saving listener
                if stop.signal is None:
                    raise
                result = self
            if stop.signal is None:  # after a signal every rank exits: nobody evaluates
                _ranks.after_train()
        stop.raise_if_signalled()
        return result

    def _convert_train_steps_to_hooks(self, steps, max_steps):
        """None here: the plan's step hooks are added once the loop is built."""
        return []

    def _train_model_default(self, input_fn, hooks, saving_listeners):
        plan = self._plan
        with tf.Graph().as_default() as graph, graph.device(self._device_fn):
            tf.compat.v1.random.set_random_seed(self._config.tf_random_seed)
            global_step = self._create_and_assert_global_step(graph)
            if global_step is not None:
                estimator_lib.get_or_create_global_step_read(graph)
            program = self._builder(plan).train(self._call_input_fn(input_fn, ModeKeys.TRAIN),
                                                outer_hooks=hooks)
            limit, align = loop_hooks.training_loop_hooks(plan, program.loop)
            # after every hook given to train(): their own runs in before_run then read
            # the global step without the loop (fetch_global_step_as_logged)
            hooks = list(hooks) + limit + marked_run_start_hooks(program.hooks)
            worker_hooks = ([CachedRunsHook()] + list(program.hooks) + debugging.training_hooks(
                self._config, self._model_dir, plan, program.loop) + align
                            + [CloseBehindHook(program.input_release)])
            if program.loop is not None and plan.log_every:
                worker_hooks.append(loop_hooks.LoopLoggingHook(program.spec.loss, plan,
                                                               program.loop))
                if self._config.is_chief:
                    worker_hooks.append(tf.compat.v1.train.StepCounterHook(
                        every_n_steps=plan.log_every, output_dir=self._model_dir))
            return self._run_training(program, worker_hooks, hooks,
                                      tf.compat.v1.train.get_global_step(graph),
                                      saving_listeners)

    def _run_training(self, program, worker_hooks, hooks, global_step_tensor,
                      saving_listeners):
        """The stock Estimator's training session for ``program``, with host_calls drained."""
        config = self._config
        if program.loop is not None:
            # Logging and step counting are replaced by step-aware hooks, and
            # summaries are written from inside the loop (loop_summaries).
            self._config = config.replace(log_step_count_steps=None, save_summary_steps=0)
        checkpoint_shapes.check_latest(self._model_dir)
        estimator_spec, hooks = self._with_session_start(program, worker_hooks, list(hooks))
        if not self._writes_checkpoints:  # nor may the stock Estimator add a saver
            self._config = self._config.replace(save_checkpoints_steps=None,
                                                save_checkpoints_secs=None)
        parent = super(NPUEstimator, self)._train_with_estimator_spec
        host_hooks = _host_hooks(worker_hooks)
        for hook in host_hooks:
            hook.marks_restart = True  # a resumed run hides a crashed run's later records
        if host_hooks:  # checkpoints wait until the records they cover are on disk
            saving_listeners = list(saving_listeners or []) + [RecordsBeforeCheckpoint(host_hooks)]
        all_hooks = worker_hooks + list(hooks) + list(estimator_spec.training_chief_hooks)
        if _saves_checkpoints(all_hooks):  # a signal's stop is bounded once its checkpoint is written
            saving_listeners = list(saving_listeners or []) + [
                h.final_checkpoint_listener() for h in hooks if isinstance(h, StopOnSignalHook)]
        try:
            return _run_with_host_calls(
                host_hooks,
                lambda: parent(estimator_spec, worker_hooks, hooks,
                               global_step_tensor, saving_listeners))
        finally:
            self._config = config

    def _with_session_start(self, program, worker_hooks, hooks):
        """(spec, hooks) with the hooks that must act first as a session starts leading
        its chief hooks: restoring sharded optimizer slots, the variable broadcast
        (taken out of ``hooks``) and our checkpoint saver where the stock Estimator
        would add its own (none given, and the config saves checkpoints), in the
        order ``session_start_order`` gives."""
        spec = program.spec
        restores = _ranks.session_start_hooks(spec.scaffold, self._config, self._model_dir)
        broadcasts, hooks = _ranks.broadcast_hooks_apart(hooks)
        given = worker_hooks + hooks + list(spec.training_chief_hooks)
        saver = None
        if not any(isinstance(h, tf.compat.v1.train.CheckpointSaverHook) for h in given):
            saver = checkpoint_saver.saver_hook_for(
                self._config, self._model_dir, spec.scaffold, self._writes_checkpoints,
                step_after_run=program.loop.step_after if program.loop is not None else None)
        first = _ranks.session_start_order(restores, broadcasts, saver, self._writes_checkpoints)
        return spec._replace(training_chief_hooks=first + list(spec.training_chief_hooks)), hooks

    # ---- prediction -----------------------------------------------------

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Estimator.predict; a checkpoint of other shapes fails before it is restored,
        and the dump and overflow hooks the config asks for watch its batches."""
        hooks = list(hooks or []) + [
            CachedRunsHook(), checkpoint_shapes.CheckpointShapesHook(self._model_dir, checkpoint_path)
        ] + debugging.prediction_hooks(self._config, self._model_dir)
        return super(NPUEstimator, self).predict(
            input_fn, predict_keys=predict_keys, hooks=hooks, checkpoint_path=checkpoint_path,
            yield_single_examples=yield_single_examples)

    # ---- evaluation -----------------------------------------------------

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Estimator.evaluate, N eval steps per ``Session.run`` (metrics updated every step).

        SIGTERM/SIGINT end it after the current loop, without metrics: the process then
        exits 143 (SIGTERM) or KeyboardInterrupt is raised (SIGINT); with ranks, a run
        that waits on peers longer than the rank timeout ends the rank.
        """
        stopping = GracefulStop.stopping()
        if stopping is not None:  # train_and_evaluate, after a signal's final checkpoint
            stopping.wind_down("training stopped on a signal; the evaluation it would start "
                               "is skipped; closing the session")
            raise EvaluationInterrupted()
        plan = plan_evaluation(self._config, steps,
                               single_steps=debugging.single_steps(self._config))
        with self._running(plan), \
                GracefulStop(then="ending the evaluation without writing metrics") as stop:
            try:
                # ``steps`` lives in the plan; the plan's hook stops after that many.
                result = super(NPUEstimator, self).evaluate(
                    input_fn, steps=None, checkpoint_path=checkpoint_path, name=name,
                    hooks=(_ranks.rank_eval_hooks(hooks) + [stop.evaluation_hook()]
                           + watchdog_hooks()))
            except EvaluationInterrupted:
                result = None
        if stop.pass_to_enclosing():  # train_and_evaluate: the train() around it stops
            raise EvaluationInterrupted()
        stop.raise_if_signalled()
        return result

    def _call_model_fn_eval(self, input_fn, config):
        plan = self._plan
        program = self._builder(plan).evaluate(self._call_input_fn(input_fn, ModeKeys.EVAL))
        hooks = ([CachedRunsHook()] + list(program.hooks)
                 + [loop_hooks.EvalStepLimitHook(plan, program.loop)]
                 + debugging.evaluation_hooks(self._config, self._model_dir)
                 + [CloseBehindHook(program.input_release)])
        return (program.scaffold, program.spec.evaluation_hooks, hooks,
                program.update_op, program.eval_dict)

    def _evaluate_run(self, checkpoint_path, scaffold, update_op, eval_dict,
                      all_hooks, output_dir):
        checkpoint_shapes.check(checkpoint_path)
        parent = super(NPUEstimator, self)._evaluate_run
        # the signal hook ends last: the others (host_call drain) have ended when it raises
        all_hooks = ([h for h in all_hooks if not isinstance(h, StopEvaluationOnSignalHook)]
                     + [h for h in all_hooks if isinstance(h, StopEvaluationOnSignalHook)])
        return _run_with_host_calls(
            _host_hooks(all_hooks),
            lambda: parent(checkpoint_path, scaffold, update_op, eval_dict,
                           all_hooks, output_dir))
