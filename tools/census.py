"""Census of npu-bridge-check over a folder of scripts (a model zoo checkout, say).

    python tools/census.py PATH... [--filter REGEX | --all] [--top N] [--json]

Reads every .py file under the PATHs (folders searched recursively, hidden
folders such as .git skipped) whose text matches ``--filter`` (by default:
a line that imports npu_bridge or hccl), checks each on its own (the
modules it imports are counted only if they match too) with one resolver
process, and prints how many files have nothing missing, how many have
something missing, are Python 2 code or could not be checked (Python
cannot read them, or the check itself failed: a crash), how many lookups
hung or ended the resolver, and the names that stop the most files.  The
numbers in docs/tf1_mode.md come from this command over Ascend's public
ModelZoo-TensorFlow.
"""

import argparse
import json
import re
import sys
import time
from collections import Counter

from npu_bridge.migration_check.check import check_files, python_files
from npu_bridge.migration_check.resolver_client import ResolverClient

DEFAULT_FILTER = r"^[ \t]*(?:from|import)[ \t]+(?:npu_bridge|hccl)\b"


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="census", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="folders or .py files")
    parser.add_argument("--filter", default=DEFAULT_FILTER,
                        help="check only files whose text matches this regular expression "
                             "(multi-line mode; default: %(default)r)")
    parser.add_argument("--all", action="store_true", help="check every .py file")
    parser.add_argument("--top", type=int, default=25, help="how many names to list")
    parser.add_argument("--json", action="store_true", help="print the census as JSON")
    return parser.parse_args(argv)


def selected_files(paths, pattern):
    """The .py files under ``paths`` whose text matches ``pattern`` (None: all of them)."""
    for path in python_files(paths):
        if pattern is None:
            yield path
            continue
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            yield path  # unreadable files are counted, not dropped
            continue
        if pattern.search(text):
            yield path


# A name read but bound nowhere in the file, looked for in its star imports (the script's own
# bug: the original's star imports gave no such name either, since ours export all of theirs).
UNBOUND = "(never bound in this file)"


def _key(finding):
    if finding.problem == "argument":
        return "%s(...) arguments" % finding.missing
    if finding.problem == "broken":
        return "%s (does not work)" % finding.missing
    if finding.problem == "python2":
        return finding.name or "Python 2 syntax"
    return finding.missing


def census(reports, top):
    stops, kinds = Counter(), Counter()
    python2 = Counter()
    for report in reports:
        stopping = [f for f in report.findings
                    if f.problem in ("missing", "broken", "argument", "unresolved")]
        stops.update({_key(f) for f in stopping})
        kinds.update({f.kind for f in stopping})
        python2.update({_key(f) for f in report.findings if f.problem == "python2"})
    status = Counter(r.status for r in reports)
    files = len(reports)
    only_unbound = sum(1 for r in reports if r.status == "missing" and all(
        UNBOUND in f.message for f in r.findings
        if f.problem in ("missing", "broken", "argument", "unresolved")))
    return {
        "files": files,
        "nothing_missing": status["clean"],
        "nothing_missing_share": round(100.0 * status["clean"] / files, 1) if files else 0.0,
        "something_missing": status["missing"],
        "only_unbound_names": only_unbound,
        "python2": status["python2"],
        "unreadable": status["unreadable"],
        "crashes": status["crash"],
        "unresolved_lookups": sum(1 for r in reports for f in r.findings
                                  if f.problem == "unresolved"),
        "files_by_kind": kinds.most_common(),
        "top_missing": stops.most_common(top),
        "python2_signs": python2.most_common(10),
        "unreadable_files": [(r.path, r.findings[0].message) for r in reports
                             if r.status in ("unreadable", "crash")],
    }


def write_text(result, pattern_text, seconds, out):
    files = result["files"]

    def share(n):
        return "%d (%.1f%%)" % (n, 100.0 * n / files) if files else "0"
    out.write("files checked:       %d (filter: %s)\n" % (files, pattern_text))
    out.write("nothing missing:     %s\n" % share(result["nothing_missing"]))
    out.write("something missing:   %s\n" % share(result["something_missing"]))
    out.write("  of which only names the file never binds: %s\n"
              % share(result["only_unbound_names"]))
    out.write("Python 2 code:       %s\n" % share(result["python2"]))
    out.write("unreadable:          %s\n" % share(result["unreadable"]))
    out.write("crashes:             %d\n" % result["crashes"])
    out.write("lookups that hung or ended the resolver: %d\n" % result["unresolved_lookups"])
    out.write("files with a use that stops them, by kind: %s\n" % ", ".join(
        "%s %d" % pair for pair in result["files_by_kind"]))
    out.write("most-used names that stop scripts (files):\n")
    for name, count in result["top_missing"]:
        out.write("  %5d  %s\n" % (count, name))
    if result["python2_signs"]:
        out.write("Python 2 signs (files): %s\n" % ", ".join(
            "%s %d" % pair for pair in result["python2_signs"]))
    for path, message in result["unreadable_files"]:
        out.write("not checked: %s: %s\n" % (path, message))
    out.write("time: %.0f s\n" % seconds)


def run(paths, pattern, top, client):
    """The census of the files under ``paths`` matching ``pattern``, checked through ``client``."""
    files = list(selected_files(paths, pattern))
    return census(check_files(files, client, follow_imports=False), top)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    pattern = None if args.all else re.compile(args.filter, re.MULTILINE)
    started = time.monotonic()
    with ResolverClient() as client:
        result = run(args.paths, pattern, args.top, client)
    seconds = time.monotonic() - started
    if args.json:
        result["seconds"] = round(seconds, 1)
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        write_text(result, "all .py files" if args.all else repr(args.filter), seconds, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
