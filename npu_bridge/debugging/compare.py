"""``npu-bridge-dump-compare DIR_A DIR_B``: where two op dumps part ways.

Each DIR is a dumped step (a folder with ``index.json``, or any folder of
.npy files in the dump layout, e.g. an NPU dump converted to npy) or a
``dump_path`` holding ``step_<k>`` folders (``--step`` picks one; default the
first step both have). For every tensor present in both (same op name, same
``output_<slot>`` / ``input_<i>``) it prints, in DIR_A's execution order:

* max_abs_error: max |a - b|;
* max_rel_error: max |a - b| / max |a| (relative to the tensor's scale, so
  values near zero do not blow it up);
* cosine: cosine similarity of a and b flattened (1.0 for two zero tensors).

A tensor diverges when its ``--metric`` passes ``--threshold`` (an error
above it, or a cosine below it); the first diverging tensor in execution
order is named at the end: that op is where the two runs part. ``--csv``
prints the table as CSV. Exit status: 0 when nothing diverges, 1 when
something does, 2 on bad arguments.

Typical use: dump the same steps on a reference (CPU, float32) and on the
run under suspicion (GPU, precision_mode="allow_mix_precision", an NPU
dump), then compare the two step folders.
"""

import argparse
import csv
import os
import sys

import numpy as np

from npu_bridge.debugging import layout

METRICS = ("max_abs_error", "max_rel_error", "cosine")
DEFAULT_THRESHOLDS = {"max_abs_error": 1e-4, "max_rel_error": 1e-3, "cosine": 0.999}
COLUMNS = ("order", "op", "type", "tensor", "shape", "max_abs_error", "max_rel_error",
           "cosine", "diverged")


def tensor_difference(a, b):
    """{max_abs_error, max_rel_error, cosine} of two arrays of one shape."""
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    if a.size == 0:
        return {"max_abs_error": 0.0, "max_rel_error": 0.0, "cosine": 1.0}
    diff = np.abs(a - b)
    max_abs = float(np.max(diff))
    scale = float(np.max(np.abs(a)))
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf"))
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norms == 0:
        cosine = 1.0 if max_abs == 0 else 0.0
    else:
        cosine = float(np.dot(a, b) / norms)
    return {"max_abs_error": max_abs, "max_rel_error": max_rel, "cosine": cosine}


def _diverges(row, metric, threshold):
    if row["shape"] is None:  # shapes differ
        return True
    value = row[metric]
    if np.isnan(value):
        return True
    return value < threshold if metric == "cosine" else value > threshold


def compare_steps(dir_a, dir_b, metric="max_rel_error", threshold=None):
    """(rows in DIR_A's execution order, first diverging row or None)."""
    if metric not in METRICS:
        raise ValueError("metric must be one of %s; got %r." % (", ".join(METRICS), metric))
    if threshold is None:
        threshold = DEFAULT_THRESHOLDS[metric]
    ops_b = {name: dict(tensors) for name, _, tensors in layout.read_step(dir_b)}
    rows, first = [], None
    for order, (name, op_type, tensors) in enumerate(layout.read_step(dir_a)):
        if name not in ops_b:
            continue
        for kind, path in tensors:
            if kind not in ops_b[name]:
                continue
            a, b = np.load(path), np.load(ops_b[name][kind])
            row = {"order": order, "op": name, "type": op_type, "tensor": kind}
            if a.shape != b.shape:
                row.update(shape=None, max_abs_error=float("nan"),
                           max_rel_error=float("nan"), cosine=float("nan"))
            else:
                row.update(shape="x".join(map(str, a.shape)) or "scalar",
                           **tensor_difference(a, b))
            row["diverged"] = _diverges(row, metric, threshold)
            if row["diverged"] and first is None:
                first = row
            rows.append(row)
    return rows, first


def resolve_step_dir(directory, step=None, other=None):
    """``directory`` itself if it is a step folder, else its step_<k> folder."""
    if os.path.exists(os.path.join(directory, layout.INDEX)):
        return directory
    steps = layout.steps_in(directory) if os.path.isdir(directory) else []
    if not steps:
        if os.path.isdir(directory):
            return directory  # a bare folder of .npy files
        raise ValueError("%s is not a dump folder (no index.json, no step_<k> folders)."
                         % directory)
    if step is None:
        common = sorted(set(steps) & set(other)) if other else steps
        step = (common or steps)[0]
    if step not in steps:
        raise ValueError("%s has no step %d; it has steps %s." % (directory, step, steps))
    return layout.step_dir(directory, step)


def _print_table(rows, first, out, as_csv):
    if as_csv:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
        return
    out.write("%5s  %-48s %-16s %-10s %12s %12s %10s\n"
              % ("order", "op", "type", "tensor", "max_abs_err", "max_rel_err", "cosine"))
    for row in rows:
        out.write("%5d  %-48s %-16s %-10s %12.4g %12.4g %10.6f%s\n"
                  % (row["order"], row["op"], row["type"], row["tensor"],
                     row["max_abs_error"], row["max_rel_error"], row["cosine"],
                     "  <-- first divergence" if row is first else ""))


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="npu-bridge-dump-compare",
        description="Compare two op dumps tensor by tensor, in execution order.")
    parser.add_argument("dir_a", help="reference dump (a step folder or a dump_path)")
    parser.add_argument("dir_b", help="dump to check against it")
    parser.add_argument("--step", type=int, default=None,
                        help="step to compare when a DIR holds several step_<k> folders")
    parser.add_argument("--metric", choices=METRICS, default="max_rel_error",
                        help="what decides divergence (default max_rel_error)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="divergence threshold: an error above it or a cosine below it "
                             "(defaults: %s)" % ", ".join(
                                 "%s %g" % item for item in DEFAULT_THRESHOLDS.items()))
    parser.add_argument("--csv", action="store_true", help="print the table as CSV")
    args = parser.parse_args(argv)
    try:
        steps_b = layout.steps_in(args.dir_b) if os.path.isdir(args.dir_b) else []
        dir_a = resolve_step_dir(args.dir_a, args.step, steps_b)
        steps_a = layout.steps_in(args.dir_a) if os.path.isdir(args.dir_a) else []
        dir_b = resolve_step_dir(args.dir_b, args.step, steps_a)
        rows, first = compare_steps(dir_a, dir_b, args.metric, args.threshold)
    except (ValueError, OSError) as error:
        parser.exit(2, "npu-bridge-dump-compare: %s\n" % error)
    _print_table(rows, first, sys.stdout, args.csv)
    summary = sys.stderr if args.csv else sys.stdout
    if not rows:
        summary.write("No tensor is present in both %s and %s.\n" % (dir_a, dir_b))
    elif first is None:
        summary.write("%d tensors compared; none diverges.\n" % len(rows))
    else:
        summary.write("%d tensors compared; first divergence: op %s (%s) %s, %s = %.4g\n"
                      % (len(rows), first["op"], first["type"], first["tensor"],
                         args.metric, first[args.metric]))
    return 1 if first is not None else 0


if __name__ == "__main__":
    sys.exit(main())
