"""The ``.meta`` file of each checkpoint, serialised once per session, before it is due.

``Saver.save`` writes a checkpoint's MetaGraphDef after its values: it turns the
whole graph into a GraphDef, adds every collection and serialises the lot, at
every save. That is most of a save on small models (0.25 s of 0.26 s for
bench_startup's 250-variable model; 0.11 s for bench_loop's mlp, whose data is a
constant in the graph), and training waits for it each time, as does every
other rank at the barrier after train() (``distributed.sessions.estimator_support``).

While a session runs its graph is finalised: no op can be added, so the
MetaGraphDef can only change through its collections, which stay open.
``PreparedMetaGraph`` therefore serialises it on a thread of its own as the
session starts, while the first device loop runs, from the GraphDef the
checkpoint saver makes of the finalised graph anyway (one ``as_graph_def`` per
session start serves every use), and each save writes those bytes, the same
ones ``Saver.export_meta_graph`` would write (a test compares them) except for
collection entries naming ops of a device loop's body, which no importer could
resolve (``_drop_names_of_loop_bodies``). A save waits for
the thread if it has not finished; it serialises again in place, as the stock
save does, when a collection has grown or shrunk since or the thread failed.
"""

import re
import sys
import threading
import uuid

import tensorflow as tf

from npu_bridge.tf_private.checkpoint import saver_saves_nothing

_SHARD_SUFFIX = re.compile(r"-[\d\?]+-of-\d+$")  # "-00000-of-00002" or "-?????-of-00002"


def collection_sizes(graph):
    """What can still change in a finalised graph's MetaGraphDef: its collections."""
    return sorted(((repr(key), len(graph.get_collection(key)))
                   for key in graph.get_all_collection_keys()))


def meta_graph_path(checkpoint_path):
    """Where ``Saver.save`` puts the ``.meta`` file of the checkpoint at ``checkpoint_path``
    (a sharded checkpoint's shard suffix is not part of it)."""
    return _SHARD_SUFFIX.sub("", checkpoint_path) + ".meta"


def _write_atomically(path, data):
    """Write to a temporary file beside ``path``, then rename it: no half-written ``.meta``."""
    temporary = "%s.tmp%s" % (path, uuid.uuid4().hex)
    with tf.io.gfile.GFile(temporary, "wb") as f:
        f.write(data)
    tf.io.gfile.rename(temporary, path, overwrite=True)


def _drop_names_of_loop_bodies(meta_graph):
    """Remove collection entries that name no node of the exported graph.

    A device loop's body is a function graph that shares the outer graph's
    collections, so what model_fn adds there (the optimizer's update op in
    ``train_op``, batch-norm updates, its own collections) is exported by
    name, and ``tf.compat.v1.train.import_meta_graph`` fails on a name the
    graph does not have. Those entries are dropped, and a collection left
    empty with them; nothing else changes.
    """
    nodes = {node.name for node in meta_graph.graph_def.node}
    for key in list(meta_graph.collection_def):
        collection = meta_graph.collection_def[key]
        if not collection.HasField("node_list"):
            continue
        names = list(collection.node_list.value)
        kept = [name for name in names if name.lstrip("^").split(":")[0] in nodes]
        if len(kept) == len(names):
            continue
        if kept:
            del collection.node_list.value[:]
            collection.node_list.value.extend(kept)
        else:
            del meta_graph.collection_def[key]


class PreparedMetaGraph(object):
    """The serialised MetaGraphDef ``saver`` would write for ``graph``, made on a thread.

    Build it once the session exists (the graph is finalised); ``write`` after
    each ``saver.save(..., write_meta_graph=False)``.
    """

    def __init__(self, saver, graph, graph_def=None):
        """``graph_def``: ``graph.as_graph_def(add_shapes=True)`` of the finalised graph, if
        the caller has it (what ``Saver.export_meta_graph`` would make again); else made here."""
        self._saver, self._graph, self._graph_def = saver, graph, graph_def
        self._sizes = collection_sizes(graph)
        self._bytes = None
        self._thread = threading.Thread(target=self._prepare, name="npu_bridge-meta-graph",
                                        daemon=True)  # it only computes; nothing to lose
        self._thread.start()

    @staticmethod
    def usable(saver, graph):
        """Whether saves by ``saver`` in ``graph`` can use a prepared MetaGraphDef.

        Only a finalised graph, a ``tf.compat.v1.train.Saver`` that saves values
        (an empty one returns no path to name the file after), on a
        little-endian machine (``write_graph`` swaps bytes on others).
        """
        return (graph.finalized and isinstance(saver, tf.compat.v1.train.Saver)
                and saver.saver_def is not None and not saver_saves_nothing(saver)
                and sys.byteorder == "little")

    def _serialise(self):
        with self._graph.as_default():
            if self._graph_def is None:
                meta_graph = self._saver.export_meta_graph()
            else:  # what the Saver's method passes, with the GraphDef it would make
                meta_graph = tf.compat.v1.train.export_meta_graph(
                    graph_def=self._graph_def, saver_def=self._saver.saver_def)
        _drop_names_of_loop_bodies(meta_graph)
        return meta_graph.SerializeToString(deterministic=True)

    def _prepare(self):
        try:
            self._bytes = self._serialise()
        except Exception as error:  # pylint: disable=broad-except
            tf.compat.v1.logging.info("npu_bridge: preparing the checkpoints' meta graph "
                                      "failed (each save serialises it instead): %s", error)

    def write(self, checkpoint_path):
        """Writes the ``.meta`` file of the checkpoint ``saver.save`` returned."""
        self._thread.join()
        if self._bytes is None or collection_sizes(self._graph) != self._sizes:
            self._bytes, self._sizes = self._serialise(), collection_sizes(self._graph)
        path = meta_graph_path(checkpoint_path)
        _write_atomically(path, self._bytes)
        return path
