"""Graph surgery the device loop and the outfeed rely on: while_v2 and edits to existing ops.

The device loop is a ``while_v2`` loop (a functional While whose body is a
function graph; the public ``tf.while_loop`` builds v1 control flow under TF1
behaviour). Reads of variables are ordered after a step by adding control
inputs to ops that already exist, and a read of a reference variable is
rewired to a fresh copy (``DeepCopy``). If these change, the device loop and
host_call's step-exact reads break: importing this module fails then.
"""

import tensorflow as tf

from npu_bridge.tf_private import check_version, missing

AREA = "graph"
check_version(AREA, "while_v2, Operation._add_control_input(s)/_update_input, DeepCopy")

try:
    from tensorflow.python.framework import meta_graph as _meta_graph
    from tensorflow.python.framework import ops as _ops
    from tensorflow.python.ops import gen_array_ops as _gen_array_ops
    from tensorflow.python.ops import while_v2 as _while_v2

    while_loop = _while_v2.while_loop
    deep_copy = _gen_array_ops.deep_copy
    create_meta_graph_def = _meta_graph.create_meta_graph_def
    for _name in ("_add_control_input", "_add_control_inputs", "_update_input",
                  "_remove_all_control_inputs"):
        if not callable(getattr(_ops.Operation, _name, None)):
            raise AttributeError("Operation.%s" % _name)
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "while_v2, DeepCopy, meta graphs and Operation's edit methods",
                  "the device loop cannot be built", _error) from _error

# pylint: disable=protected-access


def add_control_inputs(op, inputs):
    """Make the existing ``op`` wait for ``inputs`` (ops)."""
    op._add_control_inputs(list(inputs))


def replace_input(op, index, tensor):
    """Make the existing ``op`` read ``tensor`` as its input ``index``."""
    op._update_input(index, tensor)


def is_stateful(op):
    """Whether ``op`` has side effects (TensorFlow never prunes or merges it)."""
    return op._is_stateful


def is_reference(tensor):
    """Whether ``tensor`` is a TF1 reference variable's ref (not a value)."""
    return tensor.dtype._is_ref_dtype


def fetch_global_step_as_logged(global_step, training_run, last_start, step_after,
                                in_training_run):
    """Make fetches of the global step variable itself consistent with a looped run.

    In the estimator's own runs (``training_run`` fed True) a fetch gives the
    global step the run's last iteration started from, the step whose loss and
    learning rate hooks see (what the plain Estimator's hooks fetch with that
    step's loss); any other ``sess.run`` of it gives its value after the loop
    (as a hook's own read after the run does in the plain Estimator).

    That fetch needs the loop op, so a run of it alone would make the session
    prepare the whole loop for it (seconds on a rank's server) and run the loop
    with no iterations. Where ``in_training_run()`` (called as the fetch is
    resolved) is False, the fetch is the variable's plain read instead, which
    gives the same value outside the estimator's runs; it must be True
    whenever the estimator's own run resolves its fetches.

    Relies on a variable's fetches going through its ``_as_graph_element``
    method, which is shadowed on this one object (savers and meta graphs use
    ``_graph_element``, which is left alone).
    """
    plain = getattr(global_step, "_as_graph_element", None)
    if not callable(plain):
        return
    with tf.control_dependencies([step_after]):
        fetched = tf.where(training_run, last_start, step_after, name="global_step_fetched")
    global_step._as_graph_element = lambda: fetched if in_training_run() else plain()


def remove_control_inputs(op, unwanted):
    """Make the existing ``op`` no longer wait for the ops in ``unwanted``."""
    keep = [c for c in op.control_inputs if c not in unwanted]
    if len(keep) == len(op.control_inputs):
        return
    op._remove_all_control_inputs()
    op._add_control_inputs(keep)


def control_captures(func_graph):
    """Ops of outer graphs that ops of ``func_graph`` (a loop body) were told to wait
    for; a function graph keeps no such edge, it only collects the ops here."""
    return set(func_graph.function_captures.control)
