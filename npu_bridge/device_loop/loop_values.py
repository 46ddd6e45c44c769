"""Values that must leave a loop body: the last loss, metric values, hooks' tensors.

Tensors of a ``while_v2`` body cannot be fetched from outside the loop. Each
value is copied, every step, into a local variable created outside the body;
after the loop, reads of those variables (ordered after the loop) stand in
for the body tensors.
"""

import tensorflow as tf


def mirror(value, name):
    """A local variable holding ``value``'s latest result, readable after the loop."""
    value = tf.convert_to_tensor(value)
    fixed = value.shape.is_fully_defined()
    with tf.init_scope():
        shape = value.shape if fixed else []
        initial = tf.fill(shape, "") if value.dtype == tf.string else tf.zeros(shape, value.dtype)
        var = tf.compat.v1.Variable(
            initial, trainable=False, use_resource=True, validate_shape=fixed,
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES], name=name)
    return var, var.assign(value, read_value=False)


def _ancestors(ops):
    seen, stack = set(), list(ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def read_after(values, update_op):
    """Make the variable reads behind metric ``values`` wait for this step's update.

    Metric value tensors read their variables without any ordering against the
    update op; inside a loop body that race would leave a stale value.
    """
    before_update = _ancestors([update_op])
    for op in _ancestors([tf.convert_to_tensor(v).op for v in values]):
        if op.type == "ReadVariableOp" and op not in before_update:
            op._add_control_input(update_op)  # pylint: disable=protected-access


class HookTensors(object):
    """Lets hooks from model_fn fetch tensors of the loop body.

    Hooks such as ``LoggingTensorHook({"loss": loss})`` hold body tensors, which
    cannot be fetched from outside the loop. Inside the body each such tensor
    is copied into a local variable every step; after the loop the hook's
    attribute is pointed at a read of that variable, ordered after the loop,
    so the hook sees the value of the run's last step.
    """

    def __init__(self, hooks, body_graph, after):
        self._patches = []  # (setter, variable)
        mirrors = {}
        for hook in hooks:
            for name, value in list(vars(hook).items()):
                for setter, tensor in _body_tensor_slots(hook, name, value, body_graph):
                    if tensor.ref() not in mirrors:
                        var, keep = mirror(tensor, "npu_loop_hook_value_%d" % len(mirrors))
                        mirrors[tensor.ref()] = var
                        after.append(keep)
                    self._patches.append((setter, mirrors[tensor.ref()]))

    def point_hooks_outside(self, loop_done):
        reads = {}
        with tf.control_dependencies([loop_done]):
            for setter, var in self._patches:
                if var.ref() not in reads:
                    reads[var.ref()] = tf.identity(var.read_value())
                setter(reads[var.ref()])


def _body_tensor_slots(hook, name, value, body_graph):
    """(setter, tensor) for each body tensor held in ``hook.name`` (directly, in a dict or list)."""
    def is_body_tensor(item):
        return isinstance(item, tf.Tensor) and item.graph is body_graph

    if is_body_tensor(value):
        yield (lambda new: setattr(hook, name, new)), value
    elif isinstance(value, dict):
        for key, item in list(value.items()):
            if is_body_tensor(item):
                yield (lambda new, key=key: value.__setitem__(key, new)), item
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if is_body_tensor(item):
                yield (lambda new, index=index: value.__setitem__(index, new)), item
