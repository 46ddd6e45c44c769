"""Values that must leave a loop body: the last loss, metric values, hooks' tensors.

Tensors of a ``while_v2`` body cannot be fetched from outside the loop. Each
value is copied, every step, into a local variable created outside the body;
after the loop, reads of those variables (ordered after the loop) stand in
for the body tensors.
"""

import threading

import tensorflow as tf

from npu_bridge.device_loop.read_order import ancestors
from npu_bridge.tf_private.graph import add_control_inputs


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


def read_after(values, update_op):
    """Make the variable reads behind metric ``values`` wait for this step's update.

    Metric value tensors read their variables without any ordering against the
    update op; inside a loop body that race would leave a stale value.
    """
    before_update = ancestors([update_op])
    for op in ancestors([tf.convert_to_tensor(v).op for v in values]):
        if op.type == "ReadVariableOp" and op not in before_update:
            add_control_inputs(op, [update_op])


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


# ---- tensors fetched by name ------------------------------------------------------

# Names TensorFlow's Python wrappers give ops by default (lowercase ones; the others
# are the CamelCase op types).  A scalar whose name is one of these was not named
# by the script, so nobody fetches it by name.
_DEFAULT_NAMES = frozenset([
    "add", "sub", "mul", "truediv", "div", "floordiv", "floor_div", "mod", "pow", "neg",
    "and", "or", "xor", "invert", "lt", "le", "gt", "ge", "value", "read", "num_present",
    "num_elements", "zeros", "ones", "range", "sequence_length", "x", "y", "mean", "sum",
    "add_n", "cond", "weights", "labels", "predictions", "rank", "size", "shape",
    "control_dependency", "update", "count", "total", "ones_like", "zeros_like"])
_NUMERIC = (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.bool)
MAX_NAMED = 64  # each named value costs one scalar copy per step


def _script_named_scalar(op):
    """True for a scalar op output whose name the script chose (see _DEFAULT_NAMES)."""
    if op.type in ("Const", "Placeholder", "VarHandleOp", "NoOp") or len(op.outputs) != 1:
        return False
    out = op.outputs[0]
    if out.dtype.base_dtype not in _NUMERIC or out.shape.rank != 0:
        return False
    base = op.name.rsplit("/", 1)[-1]
    if not base[:1].islower() or base in _DEFAULT_NAMES or op.name.startswith("gradients"):
        return False
    suffix = base.rsplit("_", 1)
    return not (len(suffix) == 2 and suffix[1].isdigit())


def _names_in(hooks):
    """Strings held by hooks (directly, or in a dict, list or tuple attribute)."""
    for hook in hooks:
        for value in vars(hook).values():
            items = value.values() if isinstance(value, dict) else \
                value if isinstance(value, (list, tuple)) else [value]
            for item in items:
                if isinstance(item, str):
                    yield item


class NamedValues(object):
    """Lets the outer graph answer names of tensors built in the loop body.

    Hooks passed to train() (and their own ``sess.run`` calls) fetch tensors
    by name, e.g. ``"loss:0"``, which only exist inside the loop body.  Two
    kinds of body tensors are copied out every step (like ``HookTensors``) and
    re-created after the loop under the same name, ordered after the loop:

    * scalars whose name the script chose (``tf.identity(loss, name="loss")``,
      a learning rate named ``learning_rate``): any lowercase name that is not
      one of TensorFlow's default op names (at most MAX_NAMED of them);
    * any tensor whose name a hook passed to train() holds in an attribute
      (a string, or strings in a dict/list), whatever its shape.

    A separate ``sess.run`` of such a name (from a hook's after_run) does not
    run the loop again: the loop makes no iterations in runs that
    ``TrainingRunHook`` has not marked, so it reads the last step's value.
    """

    def __init__(self, body_graph, after, outer_hooks=()):
        self._copies = []  # (name, variable)
        wanted = []
        for name in _names_in(outer_hooks):
            try:
                element = body_graph.as_graph_element(name)
            except (KeyError, ValueError, TypeError):
                continue
            if isinstance(element, tf.Tensor):
                wanted.append(element)
        scalars = [op.outputs[0] for op in body_graph.get_operations()
                   if _script_named_scalar(op)]
        if len(scalars) > MAX_NAMED:
            tf.compat.v1.logging.warning(
                "npu_bridge: %d scalars of model_fn are named; only the first %d can be "
                "fetched by name under iterations_per_loop > 1 (not: %s)", len(scalars),
                MAX_NAMED, ", ".join(t.name for t in scalars[MAX_NAMED:MAX_NAMED + 10]))
            scalars = scalars[:MAX_NAMED]
        seen = set()
        for tensor in wanted + scalars:
            if tensor.name in seen:
                continue
            seen.add(tensor.name)
            var, keep = mirror(tensor, "npu_loop_named_value_%d" % len(self._copies))
            after.append(keep)
            self._copies.append((tensor.name, var))

    def alias_outside(self, loop_done):
        """Creates, for each copied value, a tensor of the same name after the loop."""
        graph = tf.compat.v1.get_default_graph()
        with graph.name_scope(None), tf.control_dependencies([loop_done]):
            for name, var in self._copies:
                op_name, index = name.rsplit(":", 1)
                if index != "0":
                    continue
                try:
                    graph.as_graph_element(name)
                    continue  # the outer graph has that name already
                except (KeyError, ValueError):
                    pass
                alias = tf.identity(var.read_value(), name=op_name)
                if alias.name != name:
                    tf.compat.v1.logging.warning(
                        "npu_bridge: could not make %s fetchable after the loop (got %s)",
                        name, alias.name)


class TrainingRunHook(tf.compat.v1.train.SessionRunHook):
    """Marks the estimator's own runs, so only they make loop iterations.

    Without the mark (a hook's own ``sess.run`` of a value read after the loop)
    the loop makes no iterations and the read returns the last step's value
    instead of training N more steps.

    ``in_marked_run()`` tells whether the calling thread is setting up one of
    those runs: from this hook's ``before_run`` (or, once ``start_hook()`` has
    been placed among the hooks, from that hook's ``before_run``) to this
    hook's ``after_run``. The estimator's run resolves its fetches in that
    stretch. A hook's own run in it (or after a run that raised) is told True
    too, so a caller may use this only to pick a cheaper fetch that is exact
    outside marked runs, keeping the exact one for every run it says True for.
    """

    def __init__(self, flag):
        self._flag = flag
        self._marking = threading.local()
        self._starter = None

    def in_marked_run(self):
        return getattr(self._marking, "on", False)

    def start_hook(self):
        """A hook whose ``before_run`` opens the marked stretch instead of this one's.

        Placed after the hooks that may run the session in their own
        ``before_run`` (those given to ``train()``), it keeps their runs out of
        the stretch; its place does not matter for exactness.
        """
        if self._starter is None:
            self._starter = _MarkStart(self._marking)
        return self._starter

    def before_run(self, run_context):
        if self._starter is None:
            self._marking.on = True
        return tf.compat.v1.train.SessionRunArgs(None, feed_dict={self._flag: True})

    def after_run(self, run_context, run_values):
        self._marking.on = False


def marked_run_start_hooks(hooks):
    """The start hooks of the ``TrainingRunHook``s among ``hooks``, to place after the
    hooks given to ``train()``."""
    return [hook.start_hook() for hook in hooks if isinstance(hook, TrainingRunHook)]


class _MarkStart(tf.compat.v1.train.SessionRunHook):
    """Opens ``TrainingRunHook``'s marked stretch from its place among the hooks."""

    def __init__(self, marking):
        self._marking = marking

    def before_run(self, run_context):
        self._marking.on = True
