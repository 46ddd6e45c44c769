"""Overflow detection (``enable_dump_debug=True`` or ``enable_exception_dump=1``).

At each checked step the run is captured by tfdbg, and the first op in
execution order whose output holds inf or nan while its inputs were finite
is named: the op where the overflow started, not the ops it spread to. Its
inputs and outputs are kept in ``<dump_path>/overflow/step_<k>/`` (the dump
layout, plus ``overflow.json`` naming the op, its type, slot and step), and
an error is logged. Training goes on: with loss scaling an overflowing step
is skipped, and later overflows are reported too.
"""

import json
import os

import numpy as np
import tensorflow as tf

from npu_bridge.debugging import layout
from npu_bridge.debugging.watched_steps import WatchedStepsHook

REPORT = "overflow.json"


def _bad(value):
    value = layout.as_numpy_float(value)
    return value.dtype.kind in "fc" and not np.all(np.isfinite(value))


def first_overflow(ops):
    """(op, slot) of the first op making inf/nan from finite inputs, or None."""
    bad_tensors = {"%s:%d" % (op.name, slot) for op in ops
                   for slot, value in op.outputs.items() if _bad(value)}
    for op in ops:  # execution order
        slots = [slot for slot, value in op.outputs.items() if _bad(value)]
        if slots and not any(source in bad_tensors for _, source in op.inputs):
            return op, slots[0]
    return None


class OverflowHook(WatchedStepsHook):
    """Names the op where inf/nan first appears at the steps in ``steps``."""

    def __init__(self, dump_path, steps, source=None):
        super(OverflowHook, self).__init__(steps, source)
        self._dump_path = dump_path
        self.reports = []  # one dict per overflowing step

    def on_capture(self, step, ops):
        found = first_overflow(ops)
        if found is None:
            return
        op, slot = found
        report = {"step": step, "op": op.name, "type": op.type, "slot": slot,
                  "order": op.order}
        directory = os.path.join(self._dump_path, "overflow", "step_%d" % step)
        layout.write_step(directory, step, [op], "all", extra={"overflow": report}, run_ops=ops)
        with open(os.path.join(directory, REPORT), "w") as f:
            json.dump(report, f, indent=1)
        self.reports.append(report)
        tf.compat.v1.logging.error(
            "Overflow at step %d: op %s (%s) produced inf/nan in output %d from finite "
            "inputs; its inputs and outputs are in %s", step, op.name, op.type, slot, directory)
