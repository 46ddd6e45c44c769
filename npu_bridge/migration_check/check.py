"""Checking files: every use a script makes whose name this package does not provide.

A finding carries the file, line and column, the kind of name
(``tf.contrib``, ``tensorflow`` for the TF1 API, ``npu_bridge`` for
npu_bridge / hccl and star-imported names, ``error`` for a file that does
not parse), the name as written and the part of it that is missing.
"""

import os
from collections import namedtuple

from npu_bridge.migration_check.provided import first_missing
from npu_bridge.migration_check.scan import scan_source

Finding = namedtuple("Finding", "path line col kind name missing message")


def _kind(missing):
    if missing.startswith("tensorflow.contrib"):
        return "tf.contrib"
    if missing.startswith("tensorflow"):
        return "tensorflow"
    return "npu_bridge"


def _message(kind, missing):
    if kind == "tf.contrib":
        return "%s is not provided by npu_bridge's TF1 mode" % missing
    if kind == "tensorflow":
        return "%s is not in the TF1 API here (tf.compat.v1 of TensorFlow 2.15)" % missing
    return "%s is not provided by this npu_bridge" % missing


def python_files(paths):
    """The .py files named by ``paths`` (folders searched recursively, hidden ones skipped)."""
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield os.path.join(folder, name)
        else:
            yield path


def check_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        uses = scan_source(source, path)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as err:
        line = getattr(err, "lineno", None) or 0
        return [Finding(path, line, 0, "error", "", "", "cannot read or parse: %s" % err)]
    findings = []
    for use in uses:
        missing = first_missing(use.dotted)
        if missing is None or any(first_missing(a) is None for a in use.alternatives):
            continue
        kind = _kind(missing)
        findings.append(Finding(path, use.line, use.col + 1, kind, use.written, missing,
                                _message(kind, missing)))
    return findings


def check_paths(paths):
    """Findings of every .py file under ``paths``, in file and line order."""
    findings = []
    for path in python_files(paths):
        findings.extend(check_file(path))
    return findings
