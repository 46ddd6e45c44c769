"""Summary-writer ops the host_call outfeed uses on the writers host_call's fn creates.

The writers fn creates with ``tf.summary.create_file_writer`` in graph mode
register an initialiser op; the outfeed finds them there, flushes them and
writes a ``SessionLog.START`` into them with ``import_event``. If these
change, host_call summaries are not initialised or flushed: importing this
module fails then.
"""

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
