"""A Scaffold that model_fn built inside the device loop, made usable outside it.

Under a loop model_fn runs inside a ``while_v2`` body, so whatever its
Scaffold holds was built in the body's function graph: a
``Saver(ema.variables_to_restore())`` has its save and restore ops there
(the session fails with "'save/Const:0' does not exist"), and an init,
ready or local init op cannot be run from outside. The variables
themselves are lifted to the outer graph, so these pieces can be rebuilt
there:

* the Saver is made again in the outer graph with the same variables and
  settings (``tf_private.checkpoint.saver_like``);
* an op or tensor (init_op, ready_op, ready_for_local_init_op,
  local_init_op, summary_op) is copied into the outer graph with the ops it
  depends on, its captured inputs (variable handles, outer tensors) mapped
  to their outer originals;
* init_fn, feed dicts and anything already in the outer graph are kept.

The result is a new Scaffold (``copy_from_scaffold``), so init_fn receives
the scaffold the session really uses.
"""

import tensorflow as tf

from npu_bridge.tf_private.checkpoint import saver_like
from npu_bridge.tf_private.graph import (
    add_control_inputs, control_captures, remove_control_inputs)

_SCAFFOLD_OPS = ("init_op", "ready_op", "ready_for_local_init_op", "local_init_op",
                 "summary_op")


def _in_other_graph(item, graph):
    return item is not None and getattr(item, "graph", graph) is not graph


def _saver_outside(saver, graph):
    """The saver's ops are in another graph when its filename tensor is not in ``graph``."""
    if saver is None:
        return False
    try:
        graph.as_graph_element(saver.saver_def.filename_tensor_name)
        return False
    except (KeyError, ValueError):
        return True


def _body_ancestors(item, body):
    """Names of the body's ops ``item`` needs (inputs and control inputs)."""
    start = item if isinstance(item, tf.Operation) else item.op
    seen, stack = set(), [start]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


# Which variables' initialisers a body op named in the scaffold may have waited on.
_INITIALISES = {"init_op": tf.compat.v1.GraphKeys.GLOBAL_VARIABLES,
                "local_init_op": tf.compat.v1.GraphKeys.LOCAL_VARIABLES}


def _lost_initialisers(body, collection):
    """Initialisers of ``collection``'s variables that body ops used as control inputs.

    A function graph drops control edges to ops of the outer graph (it only
    notes them, for the whole body, as control captures), so a
    ``tf.group(tf.compat.v1.local_variables_initializer(), ...)`` built in the
    body has lost its edges to the lifted variables' initialisers. They are
    given back to the copy, limited to the kind of variable the op initialises
    (a local init op never re-initialises restored global variables).
    """
    if collection is None:
        return []
    wanted = {v.initializer for v in tf.compat.v1.get_collection(collection)}
    return [op for op in control_captures(body) if op in wanted]


def lift(item, graph, initialises=None):
    """``item`` (an op or tensor of a loop body) copied into ``graph``.

    ``initialises``: None, or the collection of variables whose initialisers
    the op waited on in the body (see ``_lost_initialisers``).
    """
    body = item.graph
    captured = {internal.op.name: external for external, internal in body.captures}
    needed = _body_ancestors(item, body)
    whole = body.as_graph_def()
    part = tf.compat.v1.GraphDef()
    part.library.CopyFrom(whole.library)
    part.versions.CopyFrom(whole.versions)
    part.node.extend(node for node in whole.node if node.name in needed)
    input_map = {name + ":0": external for name, external in captured.items()
                 if name in needed}
    with graph.as_default():
        before = set(graph.get_operations())
        lifted, = tf.compat.v1.import_graph_def(
            part, input_map=input_map, return_elements=[item.name], name="npu_scaffold")
        lost = _lost_initialisers(body, initialises)
        # Every op of the copy waits for them, as the body's op did: a group of the
        # copy and the initialisers would run them in any order, and an
        # initialiser running last would undo what the copy assigned.
        for op in graph.get_operations():
            if op not in before:
                add_control_inputs(op, lost)
    return lifted


def local_variables():
    """References to the local variables that exist now (see ``outer_scaffold``)."""
    return {v.ref() for v in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOCAL_VARIABLES)}


def outer_scaffold(scaffold, locals_of_model_fn=None):
    """``scaffold`` if nothing of it is in a loop body, else a copy whose pieces are
    rebuilt in the current (outer) graph.

    ``locals_of_model_fn``: the local variables (``local_variables()``) that
    existed when model_fn returned. The others are the loop's and the
    outfeed's own (loop values, record counters): a local_init_op model_fn
    gives was built before they existed, so they are initialised with it.
    """
    if scaffold is None:
        return None
    graph = tf.compat.v1.get_default_graph()
    changed = {}
    for name in _SCAFFOLD_OPS:
        item = getattr(scaffold, name)
        if item is not None and not isinstance(item, (tf.Tensor, tf.Operation)):
            item = item.op  # e.g. what ``variable.assign(...)`` returns: its op
        if _in_other_graph(item, graph):
            changed[name] = lift(item, graph, _INITIALISES.get(name))
    if scaffold.local_init_op is not None and locals_of_model_fn is not None:
        ours = [v for v in tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.LOCAL_VARIABLES)
                if v.ref() not in locals_of_model_fn]
        if ours:
            with graph.as_default():
                changed["local_init_op"] = tf.group(
                    changed.get("local_init_op", scaffold.local_init_op),
                    tf.compat.v1.variables_initializer(ours))
    if _saver_outside(scaffold.saver, graph):
        with graph.as_default():
            changed["saver"] = saver_like(scaffold.saver)
    if not changed:
        return scaffold
    return tf.compat.v1.train.Scaffold(copy_from_scaffold=scaffold, **changed)


def initialisers_stay_out_of_the_loop(loop_output):
    """Keep the loop from re-running variable initialisers on every run.

    ``while_v2`` turns the body's control edges to outer ops into control
    inputs of the While op. A scaffold op built in model_fn
    (``tf.group(tf.compat.v1.local_variables_initializer(), ...)``) leaves
    such edges to the lifted variables' initialisers, which would then run
    before every loop, resetting metrics and counters. They belong to the
    scaffold (copied out by ``lift``), so the While op drops them.
    """
    op = loop_output.op
    while op.type not in ("While", "StatelessWhile") and op.inputs:
        op = op.inputs[0].op
    initialisers = {v.initializer for v in tf.compat.v1.global_variables()
                    + tf.compat.v1.local_variables()}
    remove_control_inputs(op, initialisers)
