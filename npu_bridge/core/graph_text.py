"""graph.pbtxt's text as ``tf.io.write_graph`` formats it, in a fraction of the time.

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

Even so, formatting the rest is seconds of Python for a graph of a few hundred
variables (2.5-5 s for bench_startup's), and a thread doing it in the training
process holds the GIL in 5 ms slices: each time the training thread comes back
from TensorFlow's C++ it waits for the next slice, so the session start and
first runs it overlaps slow down. ``text_in_child`` therefore formats in a
child Python process, which imports only protobuf (this module needs nothing
else, and is loaded there by its path) and rebuilds the message class from the
descriptors it is sent: the same library, so the same text. The caller falls
back to formatting in place if the child cannot run.
"""

import codecs
import os
import re
import struct
import subprocess
import sys
import tempfile
import uuid

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

# The child's scheduling priority below the training processes': under contention
# for the cores it gets about a tenth of a training process's share.
_NICENESS = 10
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


def _files_of(descriptor):
    """The FileDescriptorProtos ``descriptor``'s file needs, dependencies first."""
    ordered, seen = [], set()

    def visit(file_descriptor):
        if file_descriptor.name in seen:
            return
        seen.add(file_descriptor.name)
        for dependency in file_descriptor.dependencies:
            visit(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file_descriptor.CopyToProto(proto)
        ordered.append(proto.SerializeToString())

    visit(descriptor.file)
    return ordered


def _write_framed(out, pieces):
    """Write length-prefixed ``pieces`` (bytes), preceded by their count, to ``out``
    (piece by piece: joining megabytes first would copy them holding the GIL)."""
    out.write(struct.pack("<Q", len(pieces)))
    for piece in pieces:
        out.write(struct.pack("<Q", len(piece)))
        out.write(piece)


def _unframed(data):
    (count,), offset, pieces = struct.unpack_from("<Q", data), 8, []
    for _ in range(count):
        (size,) = struct.unpack_from("<Q", data, offset)
        pieces.append(data[offset + 8:offset + 8 + size])
        offset += 8 + size
    return pieces


def text_in_child(message, serialized=None):
    """``graph_text(message)`` made by a child Python process; raises if the child fails.

    ``serialized``: ``message.SerializeToString()``, if the caller has it already."""
    descriptor = message.DESCRIPTOR
    if serialized is None:
        serialized = message.SerializeToString()
    request = [descriptor.full_name.encode("utf-8")] + _files_of(descriptor) + [serialized]
    # loaded by path: importing the package would import TensorFlow into the child
    program = ("import sys, importlib.util as u; del sys.path[0]; "
               "s = u.spec_from_file_location('npu_bridge_graph_text', %r); "
               "m = u.module_from_spec(s); s.loader.exec_module(m); m.child_main()" % __file__)
    # through files: a pipe fed by ``communicate`` is written 512 bytes per Python
    # loop turn, tens of thousands of turns holding the GIL for a large graph
    with tempfile.TemporaryFile() as sent, tempfile.TemporaryFile() as received:
        _write_framed(sent, request)
        sent.seek(0)
        done = subprocess.run([sys.executable, "-c", program], stdin=sent, stdout=received,
                              stderr=subprocess.PIPE, check=False)
        received.seek(0)
        output = received.read()
    if done.returncode != 0:
        raise RuntimeError("formatting graph text in a child process failed (exit %d): %s"
                           % (done.returncode, done.stderr.decode("utf-8", "replace")[-2000:]))
    try:
        pieces = _unframed(output)
    except struct.error:
        pieces = []
    if len(pieces) != 1 or len(output) != 16 + len(pieces[0]):
        # something else wrote to the child's stdout (a sitecustomize, say)
        raise RuntimeError("the child formatting graph text wrote %d unexpected bytes"
                           % len(output))
    return pieces[0].decode("utf-8")


def child_main():
    """The child's side of ``text_in_child``: request on stdin, text on stdout."""
    if hasattr(os, "nice"):  # training (the ranks sharing the machine) comes first
        os.nice(_NICENESS)
    pieces = _unframed(sys.stdin.buffer.read())
    pool = descriptor_pool.DescriptorPool()
    for serialized in pieces[1:-1]:
        pool.AddSerializedFile(serialized)
    descriptor = pool.FindMessageTypeByName(pieces[0].decode("utf-8"))
    if hasattr(message_factory, "GetMessageClass"):  # protobuf >= 4.22
        message_class = message_factory.GetMessageClass(descriptor)
    else:
        message_class = message_factory.MessageFactory(pool).GetPrototype(descriptor)
    text = graph_text(message_class.FromString(pieces[-1])).encode("utf-8")
    _write_framed(sys.stdout.buffer, [text])
    sys.stdout.buffer.flush()
