"""graph.pbtxt, written as ``tf.io.write_graph`` writes it, in a fraction of the time.

``tf.io.write_graph(..., as_text=True)`` formats the GraphDef with protobuf's
``text_format``, which escapes ``bytes`` fields one byte at a time in Python.
A graph that embeds its data (``Dataset.from_tensor_slices(numpy_array)``
makes a constant of the whole array) spends nearly all of its formatting
there: about 1.3 s of CPU for a 12 MB constant on the 2-core machine, held
under the GIL while training starts, so it slows the first seconds of every
``train()`` call into a fresh model_dir.

Here the large ``tensor_content`` fields (raw tensor bytes, the one place a
graph holds megabytes) are taken out before formatting, replaced by unique
markers, and put back escaped by ``codecs.escape_encode``, which runs in C.
Its escapes (``\\xNN``, ``\\n``, ``\\t``, ``\\r``, ``\\\\``, ``\\'``) are ones
protobuf's text parsers read (Python's and C++'s), and a double quote gets a
backslash too, since the field is written between double quotes. The text
differs from ``text_format``'s spelling of those bytes (it writes octal
escapes), but it parses back to the same GraphDef (``tests/test_graph_writes.py``
reads it back with ``text_format`` and compares). Everything else is
``text_format``'s own output.
"""

import codecs
import os
import re
import sys
import uuid

import tensorflow as tf
from google.protobuf import text_format

# Smaller contents are left to text_format: escaping them costs little, and
# the markers would not pay for themselves.
LARGE_CONTENT = 1024


def _tensors(graph_def):
    """Every TensorProto held in an attribute of a node of the graph or of its functions."""
    node_lists = [graph_def.node] + [f.node_def for f in graph_def.library.function]
    for nodes in node_lists:
        for node in nodes:
            for value in node.attr.values():
                if value.HasField("tensor"):
                    yield value.tensor
                elif value.HasField("list"):
                    for tensor in value.list.tensor:
                        yield tensor


def _escaped(content):
    """``content`` spelled for a double-quoted text-format string, by C-speed escaping."""
    return codecs.escape_encode(content)[0].replace(b'"', b'\\"').decode("ascii")


def graph_text(graph_def):
    """The text ``tf.io.write_graph`` would write for ``graph_def`` (parses to the same GraphDef)."""
    large = [t for t in _tensors(graph_def) if len(t.tensor_content) >= LARGE_CONTENT]
    if not large:
        return text_format.MessageToString(graph_def, float_format="")
    copy = type(graph_def)()
    copy.CopyFrom(graph_def)
    token = "npu_bridge_content_%s_" % uuid.uuid4().hex
    contents = []
    for tensor in _tensors(copy):
        if len(tensor.tensor_content) >= LARGE_CONTENT:
            contents.append(tensor.tensor_content)
            tensor.tensor_content = ("%s%d" % (token, len(contents) - 1)).encode("ascii")
    text = text_format.MessageToString(copy, float_format="")
    marker = re.compile('"%s(\\d+)"' % token)
    pieces, start, found = [], 0, 0
    for match in marker.finditer(text):
        pieces.append(text[start:match.start()])
        pieces.append('"%s"' % _escaped(contents[int(match.group(1))]))
        start, found = match.end(), found + 1
    pieces.append(text[start:])
    if found != len(contents):  # cannot happen with a fresh token; stay faithful if it does
        return text_format.MessageToString(graph_def, float_format="")
    return "".join(pieces)


def write_graph_text(graph_def, logdir, name):
    """Write ``graph_def`` as text to ``logdir/name`` atomically, as ``tf.io.write_graph`` does."""
    if sys.byteorder == "big":  # write_graph swaps tensor bytes to little-endian first
        return tf.io.write_graph(graph_def, logdir, name)
    tf.io.gfile.makedirs(logdir)
    path = os.path.join(logdir, name)
    text = graph_text(graph_def)
    temp = "%s.tmp%s" % (path, uuid.uuid4().hex)
    with tf.io.gfile.GFile(temp, "w") as out:
        out.write(text)
    tf.io.gfile.rename(temp, path, overwrite=True)
    return path
