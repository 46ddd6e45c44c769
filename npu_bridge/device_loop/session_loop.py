"""set_iteration_per_loop / IterationPerLoop for plain Session scripts.

On Ascend, the returned "IterationOp" is a marker: the graph compiler wraps
the whole training graph in a device loop, so one ``sess.run`` runs N steps.
Stock TensorFlow has no such compiler, and the train op already exists when
these functions are called, so it cannot be re-traced inside a ``while_loop``
(an op built outside a loop runs once per ``Session.run``, whatever control
dependencies point at it).  Copying the train op's subgraph into a loop body
would break on reference variables, dataset iterators and collectives.

So the loop is on the host: the returned op is registered with the session
that was passed in, and that session's ``run`` executes the train op N-1
times (through ``make_callable``, which skips fetch/feed re-parsing) before
the caller's own fetches.  One ``sess.run(returned_op)`` therefore advances
the global step by N and returns the last step's values, as on Ascend.  Only
that session instance is touched; other sessions and other fetches behave as
before.  (For in-graph loops use NPUEstimator with iterations_per_loop, which
builds the model inside its device loop.)
"""

import tensorflow as tf

from npu_bridge.common.checks import check_int
from npu_bridge.tf_private.graph import add_control_inputs

_LOOPS_ATTR = "_npu_bridge_iteration_loops"


def _check_train_op(train_op):
    if not isinstance(train_op, tf.Operation):
        raise ValueError("train_op must be a tf.Operation (e.g. the result of "
                         "optimizer.minimize); got %s." % type(train_op).__name__)


def _check_iterations(iterations_per_loop):
    return check_int("iterations_per_loop", iterations_per_loop)


def _loops_of(sess):
    """{loop op: (train op, N)} for ``sess``; installs the looping run() once."""
    loops = getattr(sess, _LOOPS_ATTR, None)
    if loops is not None:
        return loops
    loops = {}
    setattr(sess, _LOOPS_ATTR, loops)
    original_run = sess.run
    callables = {}

    def repeat(train_op, feed_dict):
        if feed_dict:
            original_run(train_op, feed_dict=feed_dict)
            return
        if train_op not in callables:
            callables[train_op] = sess.make_callable(train_op)
        callables[train_op]()

    def run(fetches, feed_dict=None, options=None, run_metadata=None):
        loop = _find_loop(sess, loops, fetches)
        if loop is not None:
            train_op, iterations = loop
            for _ in range(iterations - 1):
                repeat(train_op, feed_dict)
        return original_run(fetches, feed_dict=feed_dict, options=options,
                            run_metadata=run_metadata)

    sess.run = run
    return loops


def _find_loop(sess, loops, fetches):
    """The (train op, N) of a registered loop op among ``fetches``, if any."""
    if not loops:
        return None
    for leaf in tf.nest.flatten(fetches):
        if isinstance(leaf, str):
            try:
                leaf = sess.graph.as_graph_element(leaf)
            except (KeyError, ValueError, TypeError):
                continue
        if isinstance(leaf, tf.Operation) and leaf in loops:
            return loops[leaf]
    return None


def _loop_op(train_op):
    """A no-op running after ``train_op``, made without touching ``train_op``.

    ``tf.group``/``control_dependencies`` would set an attribute on train_op
    (``_has_manual_control_dependencies``), which TensorFlow reports as a
    mutation after run when the script already ran it; so the control edge
    is added to the new op instead.
    """
    with train_op.graph.as_default():
        op = tf.no_op(name="IterationOp")
    add_control_inputs(op, [train_op])
    return op


def set_iteration_per_loop(sess, train_op, iterations_per_loop=1):
    """An op whose ``sess.run`` runs ``train_op`` ``iterations_per_loop`` times.

    With 1, ``train_op`` itself is returned (as the original does).
    """
    _check_train_op(train_op)
    iterations_per_loop = _check_iterations(iterations_per_loop)
    if iterations_per_loop == 1:
        return train_op
    op = _loop_op(train_op)
    _loops_of(sess)[op] = (train_op, iterations_per_loop)
    return op


class IterationPerLoop(object):
    """Two-step form: build the loop op before the session, set N after it exists."""

    def __init__(self):
        self._train_op = None
        self._loop_op = None

    def create_iteration_per_loop_var(self, train_op):
        """Returns the op to run; it runs one step until N is loaded for a session."""
        _check_train_op(train_op)
        self._train_op = train_op
        self._loop_op = _loop_op(train_op)
        return self._loop_op

    def load_iteration_per_loop_var(self, sess, iterations_per_loop=1):
        """Makes ``sess.run(loop op)`` run ``iterations_per_loop`` steps."""
        iterations_per_loop = _check_iterations(iterations_per_loop)
        if self._loop_op is None:
            raise RuntimeError("IterationPerLoop.load_iteration_per_loop_var called "
                               "before create_iteration_per_loop_var(train_op).")
        _loops_of(sess)[self._loop_op] = (self._train_op, iterations_per_loop)
