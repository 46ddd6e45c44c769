"""The Estimator's private parts that NPUEstimator and the device loop build on.

NPUEstimator is ``tf.compat.v1.estimator.Estimator`` with other graphs per
``Session.run``: it overrides the private methods listed in
``OVERRIDDEN_METHODS`` and calls the private helpers below, all of
tensorflow-estimator 2.15. If a version renames one, importing this module
fails naming it: NPUEstimator's train/evaluate would otherwise silently fall
back to the stock behaviour (one step per run, no host_call).
"""

from npu_bridge.tf_private import check_version, missing

AREA = "estimator"
check_version(AREA, "Estimator private methods, eval-loop hooks, RunConfig fields")

# NPUEstimator overrides these (the stock Estimator would otherwise run them).
OVERRIDDEN_METHODS = (
    "_assert_members_are_not_overridden", "_create_global_step",
    "_convert_train_steps_to_hooks", "_train_model_default", "_call_model_fn_eval",
    "_evaluate_run")
# and calls these.
CALLED_METHODS = ("_call_model_fn", "_call_input_fn", "_create_and_assert_global_step",
                  "_train_with_estimator_spec")

try:
    from tensorflow.python.training import basic_session_run_hooks as _hooks
    from tensorflow.python.training import evaluation as _evaluation
    from tensorflow.python.training import training_util as _training_util
    from tensorflow_estimator.python.estimator import estimator as _estimator
    from tensorflow_estimator.python.estimator import run_config as _run_config
    from tensorflow_estimator.python.estimator import util as _util

    Estimator = _estimator.Estimator
    verify_and_create_loss_metric = _estimator._verify_and_create_loss_metric  # pylint: disable=protected-access
    extract_metric_update_ops = _estimator._extract_metric_update_ops  # pylint: disable=protected-access
    DatasetInitializerHook = _util._DatasetInitializerHook  # pylint: disable=protected-access
    parse_input_fn_result = _util.parse_input_fn_result
    parse_iterator_result = _util.parse_iterator_result
    MultiStepStopAfterNEvalsHook = _evaluation._MultiStepStopAfterNEvalsHook  # pylint: disable=protected-access
    get_or_create_steps_per_run_variable = _hooks.get_or_create_steps_per_run_variable
    default_session_config = _run_config.get_default_session_config
    get_or_create_global_step_read = _training_util._get_or_create_global_step_read  # pylint: disable=protected-access
    for _name in OVERRIDDEN_METHODS + CALLED_METHODS:
        if not callable(getattr(Estimator, _name, None)):
            raise AttributeError("Estimator.%s" % _name)
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "the Estimator internals NPUEstimator overrides or calls",
                  "NPUEstimator cannot build its device loop or host_call", _error) from _error


def make_single_worker(config, master):
    """Make ``config`` (a RunConfig copy) a single-worker chief on session target ``master``.

    RunConfig has no public setters for its cluster fields; each rank of a
    data-parallel job is its own chief on its own server.
    """
    import tensorflow as tf
    # pylint: disable=protected-access
    config._cluster_spec = tf.train.ClusterSpec({})
    config._task_type, config._task_id = "worker", 0
    config._master = config._evaluation_master = master
    config._is_chief = True
    config._num_worker_replicas, config._num_ps_replicas = 1, 0
    config._global_id_in_cluster = 0
    return config


def set_session_config(run_config, session_config):
    """Replace a RunConfig's session_config in place (no public setter; scripts rely on it)."""
    run_config.__dict__["_session_config"] = session_config
    return run_config


def dataset_iterator(hook):
    """The iterator a ``DatasetInitializerHook`` initialises (the one
    ``parse_input_fn_result`` made for an input_fn's Dataset), else None."""
    if not isinstance(hook, DatasetInitializerHook):
        return None
    return getattr(hook, "_iterator", None)  # pylint: disable=protected-access
