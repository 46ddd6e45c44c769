"""One Session.run watched by TensorFlow's debugger, read back as ops in execution order.

The capture is tfdbg's (TensorFlow 1.x debugger, still in
``tensorflow.python.debug`` in 2.15): ``debug_utils.watch_graph`` adds a
``DebugIdentity`` watch on every op's outputs to the run's ``RunOptions``
with a ``file://`` URL, the runtime writes each tensor as it is produced,
and ``debug_data.DebugDumpDir`` reads the files and the executed partition
graphs back. This module only reshapes that into what a dump needs: per op
its type, output values by slot, which tensors fed its inputs, and its place
in execution order (tfdbg's timestamps; ties broken by graph depth so a
producer comes before its consumer).

Graph rewrites hide ops from a dump (Grappler and the classic graph
optimizer fold constants, merge common subexpressions, fuse
MatMul+BiasAdd+Relu into one op, rename what they rewrite), so a run that
dumps turns those rewrites off (``keep_every_op``); the mixed precision
rewrite stays, since comparing float32 with precision_mode is a use.

Inside the device loop's body the runtime names ops
"npu_loop/npu_device_loop/body/_<k>/<name in the body>" (``npu_eval_loop/``
in evaluate()); that prefix is removed, so a looped run and a one-step run
name an op alike.
"""

import collections
import re
import shutil
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf.config_pb2 import OptimizerOptions
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.tf_private.debugger import debug_data, debug_utils

# Grappler passes that remove, fuse or rename ops (the mixed precision pass is not here).
_OP_REWRITES = ("constant_folding", "arithmetic_optimization", "remapping",
                "dependency_optimization", "layout_optimizer", "loop_optimization",
                "shape_optimization", "function_optimization")

_LOOP_BODY_PREFIX = re.compile(r"^(?:npu_loop/|npu_eval_loop/)?npu_device_loop/body/_\d+/")

# One op of a captured run. ``outputs``: {slot: ndarray}; ``inputs``:
# [(input index, "producer:slot")] for data inputs; ``order``: 0, 1, ... in
# execution order.
CapturedOp = collections.namedtuple(
    "CapturedOp", ["name", "type", "device", "order", "outputs", "inputs"])


def keep_every_op(session_config):
    """A copy of ``session_config`` with Grappler's op-rewriting passes and the
    classic graph optimizer's constant folding and CSE off."""
    config = tf.compat.v1.ConfigProto()
    if session_config is not None:
        config.CopyFrom(session_config)
    rewrites = config.graph_options.rewrite_options
    for field in _OP_REWRITES:
        setattr(rewrites, field, RewriterConfig.OFF)
    rewrites.memory_optimization = RewriterConfig.NO_MEM_OPT  # its own enum
    config.graph_options.optimizer_options.opt_level = OptimizerOptions.L0
    return config


def op_name(runtime_name):
    """The graph's name for an op the runtime ran (loop-body prefix removed)."""
    return _LOOP_BODY_PREFIX.sub("", runtime_name)


def _tensor_name(graph_input):
    name, _, slot = graph_input.partition(":")
    return "%s:%s" % (op_name(name), slot or "0")


class RunCapture(object):
    """Watches one Session.run into a scratch directory; ``read()`` returns its ops."""

    def __init__(self):
        self._root = tempfile.mkdtemp(prefix="npu_bridge_tfdbg_")

    def run_options(self, graph):
        """RunOptions that make the runtime dump every tensor of ``graph`` it computes."""
        options = tf.compat.v1.RunOptions()
        # Each capture's files are deleted once read, so tfdbg's disk budget
        # (TFDBG_DISK_BYTES_LIMIT) counts one run at a time.
        debug_utils.watch_graph(options, graph, debug_urls="file://" + self._root,
                                tolerate_debug_op_creation_failures=True,
                                reset_disk_byte_usage=True)
        return options

    def read(self):
        """[CapturedOp] of the watched run, in execution order."""
        return _read_dump(debug_data.DebugDumpDir(self._root))

    def close(self):
        shutil.rmtree(self._root, ignore_errors=True)


def _read_dump(dump):
    nodes = {}  # runtime name -> (device, op type, [data inputs])
    for device, graph_def in dump.reconstructed_non_debug_partition_graphs().items():
        for node in graph_def.node:
            nodes.setdefault(node.name, (device, node.op,
                                         [i for i in node.input if not i.startswith("^")]))
    first_seen = {}  # runtime name -> timestamp of its first dumped output
    values = {}      # (runtime name, slot) -> ndarray, first dump wins
    for datum in dump.dumped_tensor_data:  # ascending timestamps
        first_seen.setdefault(datum.node_name, datum.timestamp)
        key = (datum.node_name, datum.output_slot)
        if key in values:
            continue
        value = datum.get_tensor()
        if isinstance(value, np.ndarray):  # not resource handles, variants, uninitialised
            values[key] = value
    ran = _ops_that_ran(nodes, first_seen)
    depth = _depths(nodes, ran)
    outputs = collections.defaultdict(dict)
    for (name, slot), value in values.items():
        outputs[name][slot] = value
    ordered = sorted(ran.items(), key=lambda item: (item[1], depth[item[0]], item[0]))
    ops = []
    for order, (name, _) in enumerate(ordered):
        device, op_type, inputs = nodes.get(name, ("", "", []))
        ops.append(CapturedOp(op_name(name), op_type, device, order,
                              dict(sorted(outputs[name].items())),
                              [(index, _tensor_name(i)) for index, i in enumerate(inputs)]))
    return ops


def _producer(graph_input):
    return graph_input.split(":")[0]


def _ops_that_ran(nodes, first_seen):
    """{runtime name: time} of ops with a dump, plus output-less ops all of whose
    producers ran (variable updates, asserts), timed just after their last input."""
    ran = dict(first_seen)
    for name, (_, _, inputs) in nodes.items():
        if name in ran or not inputs:
            continue
        producers = [_producer(i) for i in inputs]
        if all(p in first_seen for p in producers):
            ran[name] = max(first_seen[p] for p in producers)
    return ran


def _depths(nodes, ran):
    """Longest chain of data inputs behind each op (loop back edges ignored)."""
    depth = {}
    for start in ran:
        stack = [(start, False)]
        on_path = set()
        while stack:
            name, expanded = stack.pop()
            if name in depth:
                continue
            producers = [p for p in map(_producer, nodes.get(name, (None, None, []))[2])
                         if p in nodes]
            if expanded:
                on_path.discard(name)
                depth[name] = 1 + max([depth.get(p, 0) for p in producers] or [-1])
                continue
            on_path.add(name)
            stack.append((name, True))
            stack.extend((p, False) for p in producers if p not in depth and p not in on_path)
    return depth
