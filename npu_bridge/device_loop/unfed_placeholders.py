"""host_call values that need a placeholder nothing feeds fail when the graph is built.

The Estimator feeds no placeholders: a step's inputs come from input_fn. A
host_call value computed from a ``tf.compat.v1.placeholder`` that the step
itself does not use (so no hook of the script feeds it for the step either)
would fail only at the first ``Session.run``, and inside the device loop
(where a placeholder created in the loop body can never be fed) with a name
TensorFlow made up. So ``check`` names the host_call value and the placeholder
when the graph is built. ``placeholder_with_default`` is fine.

Inside a loop body every outside tensor the body reads is a placeholder of the
body function too (a capture); those are followed to the outside tensor, and
loop variables are not placeholders of the script.
"""

from npu_bridge.device_loop.read_order import ancestors


def _script_placeholder(op):
    """The placeholder tensor ``op`` stands for, or None when it is not one of the script's."""
    if op.type != "Placeholder":
        return None
    graph = op.graph
    output = op.outputs[0]
    if any(output is inner for inner in getattr(graph, "inputs", ())):
        for outer, inner in getattr(graph, "captures", ()):
            if inner is output:  # a capture: what it captures may be a placeholder
                return _script_placeholder(outer.op)
        return None  # a loop variable
    return output


def check(host_call, step_items):
    """Raise ValueError if a host_call value needs a placeholder the step does not.

    ``host_call``: a ``core.host_call.HostCall``; ``step_items``: the step's ops
    or tensors (train_op or the metric updates, and the loss).
    """
    step_ops = ancestors([item if hasattr(item, "outputs") else item.op
                          for item in step_items if item is not None])
    keys = host_call.keys if host_call.is_dict else range(len(host_call.sources))
    for key, source in zip(keys, host_call.sources):
        if not hasattr(source, "op") or not hasattr(source.op, "inputs"):
            continue  # a variable: nothing to feed
        for op in ancestors([source.op]) - step_ops:
            placeholder = _script_placeholder(op)
            if placeholder is not None:
                raise ValueError(
                    "host_call[1][%r] (%s) is computed from the placeholder %s, which "
                    "nothing feeds: host_call values are computed in the training step, "
                    "and the Estimator feeds no placeholders. Compute the value from "
                    "features, labels or variables, or use "
                    "tf.compat.v1.placeholder_with_default."
                    % (key, source.name, placeholder.name))
