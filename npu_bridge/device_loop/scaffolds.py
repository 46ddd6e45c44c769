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


def lift(item, graph):
    """``item`` (an op or tensor of a loop body) copied into ``graph``."""
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
        lifted, = tf.compat.v1.import_graph_def(
            part, input_map=input_map, return_elements=[item.name], name="npu_scaffold")
    return lifted


def outer_scaffold(scaffold):
    """``scaffold`` if nothing of it is in a loop body, else a copy whose pieces are
    rebuilt in the current (outer) graph."""
    if scaffold is None:
        return None
    graph = tf.compat.v1.get_default_graph()
    changed = {}
    for name in _SCAFFOLD_OPS:
        item = getattr(scaffold, name)
        if _in_other_graph(item, graph):
            changed[name] = lift(item, graph)
    if _saver_outside(scaffold.saver, graph):
        with graph.as_default():
            changed["saver"] = saver_like(scaffold.saver)
    if not changed:
        return scaffold
    return tf.compat.v1.train.Scaffold(copy_from_scaffold=scaffold, **changed)
