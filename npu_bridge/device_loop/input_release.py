"""An op that ends a session's input pipeline before the session is closed.

Closing a session destroys its input iterator, and that waits for tf.data's
autotuning thread, up to a minute (``docs/device_loop.md``, "What a step and a
call cost"). On a rank's server the wait is worse than slow: the server
destroys the session's state while holding its table of sessions, so nothing
else on that server runs until it ends (the barrier after train(), the next
call's session). Re-initialising the iterator from an empty dataset of the
same structure destroys the old pipeline inside a ``Session.run`` instead,
where the wait blocks only that run; ``core.session_closing`` runs this op on
its closing thread, then closes the session at once.
"""

import tensorflow as tf


def _empty_like(spec):
    shape = [0] if spec.shape.rank is None else [d if d is not None else 0
                                                  for d in spec.shape.as_list()]
    return tf.zeros(shape, spec.dtype)


def release_op(iterator):
    """An initializer of ``iterator`` with no elements, or None where its elements
    are not plain tensors (sparse, ragged, nested datasets: closed as before)."""
    specs = tf.nest.flatten(iterator.element_spec)
    if not all(type(s) is tf.TensorSpec for s in specs):  # pylint: disable=unidiomatic-typecheck
        return None
    try:
        element = tf.nest.map_structure(_empty_like, iterator.element_spec)
    except (TypeError, ValueError):
        return None
    options = tf.data.Options()
    options.autotune.enabled = False  # nothing to tune, and no thread to wait for
    empty = tf.data.Dataset.from_tensors(element).take(0).with_options(options)
    return iterator.make_initializer(empty, name="npu_release_input")
