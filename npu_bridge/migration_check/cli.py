"""The ``npu-bridge-check`` command: findings as ``file:line:col`` lines or JSON, and an exit code.

Exit 0 when every name is provided, 1 when something is missing, 2 when a
path cannot be read or parsed (or no .py file was given).
"""

import argparse
import json
import sys

from npu_bridge.migration_check.check import check_paths, python_files


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="npu-bridge-check",
        description="List the npu_bridge, tf.contrib and TF1 names that scripts use and this "
                    "package does not provide (reads the code, does not run it).")
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".py files or folders")
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    return parser.parse_args(argv)


def main(argv=None, out=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    files = list(python_files(args.paths))
    findings = check_paths(args.paths)
    errors = [f for f in findings if f.kind == "error"]
    if args.json:
        json.dump({"files": len(files), "missing": len(findings) - len(errors),
                   "findings": [f._asdict() for f in findings]}, out, indent=1)
        out.write("\n")
    else:
        for f in findings:
            out.write("%s:%d:%d: %s: %s\n" % (f.path, f.line, f.col, f.kind, f.message))
        out.write("%d file(s) checked, %d name(s) not provided%s\n"
                  % (len(files), len(findings) - len(errors),
                     ", %d file(s) not parsed" % len(errors) if errors else ""))
    if errors or not files:
        return 2
    return 1 if findings else 0
