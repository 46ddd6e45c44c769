"""How a dumped step lies on disk, and how it is read back.

    <dump_path>/step_<k>/index.json
    <dump_path>/step_<k>/<op name>/output_<slot>.npy    dump_mode "output" or "all"
    <dump_path>/step_<k>/<op name>/input_<index>.npy    dump_mode "input" or "all"

``<op name>`` is the graph's op name, its "/" scopes as folders
("dense/MatMul/output_0.npy"). ``input_<i>.npy`` is the value that fed the
op's i-th data input (a copy of the producer's output). ``index.json`` lists
the ops in execution order: name, type, device, and per file its dtype,
shape and (for inputs) the tensor it came from. bfloat16 values (mixed
precision on CPU), which .npy cannot hold, are saved as float32 (exactly)
and marked ``"saved_as": "float32"``. A folder of .npy files in the
same layout without ``index.json`` (e.g. converted from an NPU dump) can
still be read; its order is then alphabetical.
"""

import json
import os

import numpy as np

INDEX = "index.json"
MODES = ("input", "output", "all")


def step_dir(dump_path, step):
    return os.path.join(dump_path, "step_%d" % step)


def write_step(directory, step, ops, mode, extra=None, run_ops=None):
    """Write captured ops (``capture.CapturedOp``) of one step; returns the index dict.

    Input values are looked up among ``run_ops`` (default: ``ops``), all ops of the run.
    """
    if mode not in MODES:
        raise ValueError("dump mode must be one of %s; got %r." % (", ".join(MODES), mode))
    produced = {"%s:%d" % (op.name, slot): value
                for op in (run_ops or ops) for slot, value in op.outputs.items()}
    entries = []
    for op in ops:
        files = []
        if mode in ("output", "all"):
            for slot, value in op.outputs.items():
                files.append(_save(directory, op.name, "output_%d" % slot, value, None))
        if mode in ("input", "all"):
            for index, source in op.inputs:
                if source in produced:
                    files.append(_save(directory, op.name, "input_%d" % index,
                                       produced[source], source))
        if files:
            entries.append({"name": op.name, "type": op.type, "device": op.device,
                            "order": len(entries), "tensors": files})
    index = {"step": step, "dump_mode": mode, "ops": entries}
    index.update(extra or {})
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, INDEX), "w") as f:
        json.dump(index, f, indent=1)
    return index


def as_numpy_float(value):
    """bfloat16 and other extension floats (which .npy cannot hold) as float32."""
    if value.dtype.kind == "V" and value.dtype.name.startswith(("bfloat", "float")):
        return value.astype(np.float32)
    return value


def _save(directory, name, kind, value, source):
    relative = os.path.join(*(name.split("/") + [kind + ".npy"]))
    path = os.path.join(directory, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    saved = as_numpy_float(value)
    np.save(path, saved)
    entry = {"kind": kind, "file": relative.replace(os.sep, "/"),
             "dtype": str(value.dtype), "shape": list(value.shape)}
    if saved.dtype != value.dtype:
        entry["saved_as"] = str(saved.dtype)
    if source is not None:
        entry["from"] = source
    return entry


def read_step(directory):
    """[(op name, op type, [(kind, path)])] in execution order, from index.json or the files."""
    index_path = os.path.join(directory, INDEX)
    if os.path.exists(index_path):
        with open(index_path) as f:
            index = json.load(f)
        return [(op["name"], op["type"],
                 [(t["kind"], os.path.join(directory, t["file"])) for t in op["tensors"]])
                for op in sorted(index["ops"], key=lambda op: op["order"])]
    by_op = {}
    for folder, _, files in os.walk(directory):
        for file_name in sorted(files):
            if file_name.endswith(".npy"):
                name = os.path.relpath(folder, directory).replace(os.sep, "/")
                by_op.setdefault(name, []).append(
                    (file_name[:-len(".npy")], os.path.join(folder, file_name)))
    return [(name, "", tensors) for name, tensors in sorted(by_op.items())]


def steps_in(dump_path):
    """Sorted step numbers that have a folder under ``dump_path``."""
    steps = []
    for entry in os.listdir(dump_path):
        if entry.startswith("step_") and entry[len("step_"):].isdigit():
            steps.append(int(entry[len("step_"):]))
    return sorted(steps)
