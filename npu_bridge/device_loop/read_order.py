"""Which side of a step's variable updates a host_call value is read on.

A host_call value such as ``tf.reshape(global_step, [1])`` is built in
model_fn, before (and apart from) ``train_op``: its variable read has no
ordering against the step's ``assign_add``, so TensorFlow runs it before or
after the increment at random. The documented meaning is that a variable
arrives as its value *after* the step, the same as passing the variable
itself. So every variable read that only the host_call uses (it is not an
ancestor of the step's ops) is made to wait for the step:

* resource variables: the ``ReadVariableOp`` gets a control input from the
  step's ops (each read of a resource variable is its own op);
* TF1 reference variables: their shared ``var/read`` snapshot (also what
  hooks fetch) is left alone; the host_call's consumer of it is rewired to a
  fresh copy of the variable taken after the step.

Reads the step itself depends on (a learning rate computed from the global
step, the loss) keep the value the step used.

Only the single-graph structure is looked at: a read is "the step's" if it is an
ancestor of the step's ops or of the loss.

Reference variables alias their buffer: a tensor read from one changes when
the variable is next updated in place. Values that depend on one are copied
(``DeepCopy``) before they are enqueued, so a record keeps its own step's value
while it waits in the queue.
"""

import tensorflow as tf

from npu_bridge.tf_private.graph import (
    add_control_inputs, deep_copy, is_reference, replace_input)


def ancestors(ops):
    """Every op that ``ops`` depend on (data and control edges), ``ops`` included."""
    seen, stack = set(), list(ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def _is_ref(tensor):
    return is_reference(tensor)


def _ref_source(tensor):
    """The reference-variable tensor behind ``tensor`` if it is a plain read of one."""
    if _is_ref(tensor):
        return tensor
    if tensor.op.type == "Identity" and tensor.op.inputs and _is_ref(tensor.op.inputs[0]):
        return tensor.op.inputs[0]
    return None


def _as_ops(items):
    return [item if isinstance(item, tf.Operation) else item.op for item in items]


def order_reads_after(values, after, step_values=()):
    """Make the variable reads that only ``values`` use run after the ops ``after``.

    Reads behind ``after`` or behind ``step_values`` (the loss, which the step
    computes even where train_op does not depend on it) are the step's own.
    Returns ``values``, each copied if it depends on a reference variable.
    """
    after_ops = _as_ops(after)
    step_ops = ancestors(after_ops + _as_ops([v for v in step_values if v is not None]))
    host_ops = ancestors([v.op for v in values])
    touches_ref = False
    fresh_reads = {}
    for op in host_ops:
        if op in step_ops:
            continue
        if op.type == "ReadVariableOp":
            missing = [a for a in after_ops if a not in op.control_inputs]
            if missing:
                add_control_inputs(op, missing)
            continue
        for index, tensor in enumerate(op.inputs):
            ref = _ref_source(tensor)
            if ref is None:
                continue
            touches_ref = True
            if _is_ref(tensor):
                continue  # an op taking the variable itself (the snapshot, an assign)
            if ref.ref() not in fresh_reads:
                with tf.control_dependencies(after_ops):
                    fresh_reads[ref.ref()] = deep_copy(ref)
            replace_input(op, index, fresh_reads[ref.ref()])
    if not touches_ref:
        return list(values)
    return [deep_copy(v) for v in values]
