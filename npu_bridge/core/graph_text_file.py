"""graph.pbtxt written as ``tf.io.write_graph`` writes it, formatted outside the training process.

The text is ``graph_text``'s (what ``text_format`` writes, large tensor contents
escaped at C speed), made by a child process (``graph_text.text_in_child``) so
that the seconds of formatting hold no GIL the training thread waits for; if
the child cannot run (no Python executable beside this one, a sandbox
forbidding processes), it is made here, as before.
"""

import os
import sys
import uuid

import tensorflow as tf

from npu_bridge.core.graph_text import graph_text, text_in_child


def write_graph_text(graph_def, logdir, name, serialized=None):
    """Write ``graph_def`` as text to ``logdir/name`` atomically, as ``tf.io.write_graph`` does.

    ``serialized``: ``graph_def.SerializeToString()`` if the caller has it already."""
    if sys.byteorder == "big":  # write_graph swaps tensor bytes to little-endian first
        return tf.io.write_graph(graph_def, logdir, name)
    tf.io.gfile.makedirs(logdir)
    path = os.path.join(logdir, name)
    try:
        text = text_in_child(graph_def, serialized)
    except (OSError, RuntimeError, ValueError) as error:
        tf.compat.v1.logging.info("npu_bridge: graph.pbtxt formatted in this process: %s", error)
        text = graph_text(graph_def)
    temp = "%s.tmp%s" % (path, uuid.uuid4().hex)
    with tf.io.gfile.GFile(temp, "w") as out:
        out.write(text)
    tf.io.gfile.rename(temp, path, overwrite=True)
    return path
