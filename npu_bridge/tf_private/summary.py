"""Summary-writer ops the host_call outfeed uses on the writers host_call's fn creates.

The writers fn creates with ``tf.summary.create_file_writer`` in graph mode
register an initialiser op; the outfeed finds them there, flushes them and
writes a ``SessionLog.START`` into them with ``import_event``. If these
change, host_call summaries are not initialised or flushed: importing this
module fails then.
"""

import tensorflow as tf

from npu_bridge.tf_private import check_version, missing

AREA = "summary"
check_version(AREA, "summary_ops_v2 writer initialisers, legacy_raw_flush, import_event")

try:
    from tensorflow.python.ops import gen_summary_ops as _gen_summary_ops
    from tensorflow.python.ops import summary_ops_v2 as _summary_ops_v2

    writer_initializers = _summary_ops_v2.summary_writer_initializer_op
    flush_writer = _summary_ops_v2.legacy_raw_flush
    import_event = _gen_summary_ops.import_event
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "the summary writer ops", "host_call's summary writers are neither "
                  "initialised nor flushed", _error) from _error


def give_writer_its_own_resource(writer_init_op, suffix):
    """Make the writer that ``writer_init_op`` initialises a resource of this graph alone.

    Graph-mode writers share a resource by name (their name scope, e.g.
    ``create_file_writer``). On a rank's server the resource outlives the
    session, so a later ``train()`` in the process would find the earlier
    writer, still open on the earlier folder, and write there. Appending
    ``suffix`` to the handle op's ``shared_name`` keeps each graph's writers
    apart. Relies on the init op's first input being the ``SummaryWriter``
    handle op and on ``Operation._set_attr``.
    """
    handle = writer_init_op.inputs[0].op
    if handle.type != "SummaryWriter":
        return
    name = handle.get_attr("shared_name").decode()
    handle._set_attr("shared_name", tf.compat.v1.AttrValue(  # pylint: disable=protected-access
        s=("%s_%s" % (name, suffix)).encode()))
