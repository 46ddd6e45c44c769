"""Summary-writer internals: graph-mode writers' ops, and the events file's graph records.

The writers host_call's fn creates with ``tf.summary.create_file_writer`` in
graph mode register an initialiser op; the outfeed finds them there, flushes
them and writes a ``SessionLog.START`` into them with ``import_event``. The
checkpoint saver writes a graph record from a GraphDef it already has
(``FileWriter.add_graph`` makes its own) and takes model_dir's cached
``FileWriter`` without the graph record the cache would write at creation
(the graph before it is finalised). If these change, host_call summaries are
not initialised or flushed, or the graph is not written: importing this module
fails then.
"""

import tensorflow as tf
from tensorflow.core.util import event_pb2

from npu_bridge.tf_private import check_version, missing

AREA = "summary"
check_version(AREA, "summary_ops_v2 writer initialisers, legacy_raw_flush, import_event, "
                    "FileWriter._add_event and _write_plugin_assets, FileWriterCache")

try:
    from tensorflow.python.ops import gen_summary_ops as _gen_summary_ops
    from tensorflow.python.ops import summary_ops_v2 as _summary_ops_v2

    writer_initializers = _summary_ops_v2.summary_writer_initializer_op
    flush_writer = _summary_ops_v2.legacy_raw_flush
    import_event = _gen_summary_ops.import_event
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "the summary writer ops", "host_call's summary writers are neither "
                  "initialised nor flushed", _error) from _error

try:
    from tensorflow.python.summary.writer.writer import FileWriter as _FileWriter
    from tensorflow.python.summary.writer.writer_cache import FileWriterCache as _FileWriterCache
    _FileWriter._add_event  # pylint: disable=pointless-statement,protected-access
    _FileWriter._write_plugin_assets  # pylint: disable=pointless-statement,protected-access
    _FileWriterCache._cache  # pylint: disable=pointless-statement,protected-access
    _FileWriterCache._lock  # pylint: disable=pointless-statement,protected-access
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "FileWriter's graph-record internals and FileWriterCache",
                  "the checkpoint saver cannot write the graph to the events file",
                  _error) from _error


def add_graph_def(writer, graph, serialized_graph_def):
    """What ``writer.add_graph(graph)`` writes, from ``serialized_graph_def`` (its
    ``as_graph_def(add_shapes=True)``, made and serialised once by the caller)."""
    writer._write_plugin_assets(graph)  # pylint: disable=protected-access
    writer._add_event(event_pb2.Event(graph_def=serialized_graph_def), None)  # pylint: disable=protected-access


def add_meta_graph_bytes(writer, serialized_meta_graph_def):
    """What ``writer.add_meta_graph(meta_graph_def)`` writes, from its serialised bytes."""
    writer._add_event(event_pb2.Event(meta_graph_def=serialized_meta_graph_def), None)  # pylint: disable=protected-access


def cached_writer_without_graph(logdir):
    """``FileWriterCache.get(logdir)``, creating the writer, if new, without a graph record.

    The cache creates a writer with the default graph, whose record is written
    then, while hooks' ``begin()`` still add ops; for a caller that writes the
    finalised graph's record itself that first record is a second copy.
    """
    with _FileWriterCache._lock:  # pylint: disable=protected-access
        cache = _FileWriterCache._cache  # pylint: disable=protected-access
        if logdir not in cache:
            cache[logdir] = _FileWriter(logdir)
        return cache[logdir]


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
