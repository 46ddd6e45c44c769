"""Printing the check's verdict: sections of ``file:line:col`` lines or JSON, and the exit code.

Sections, each only when it has lines: what stops scripts in the TF1 mode
(missing names, names that exist but do not work, rejected arguments),
Python 2 code, files not checked.  Exit codes (``EXIT_CODES``): 0 nothing
missing, 1 something would stop a script (missing, broken, rejected,
Python 2), 2 something could not be checked (a file Python cannot read or
parse, a failure of the check itself, no file given).
"""

import json
from collections import Counter

from npu_bridge.migration_check.check import STATUSES

EXIT_CODES = (
    (0, "every file was checked and nothing it uses is missing"),
    (1, "names are missing, do not work or reject the call's arguments, or a file is Python 2 code"),
    (2, "something could not be checked: a file Python cannot read or parse, a failure of the "
        "check itself, or no .py file given"),
)

_SECTIONS = (
    ("What stops these scripts in npu_bridge's TF1 mode",
     ("missing", "broken", "argument", "unresolved")),
    ("Python 2 code (fails on Python 3 whatever npu_bridge provides)", ("python2",)),
    ("Not checked", ("unreadable", "crash")),
)


def exit_code(reports):
    if not reports or any(r.status in ("crash", "unreadable") for r in reports):
        return 2
    return 0 if all(r.status == "clean" for r in reports) else 1


def counts(reports):
    """{status: number of files}, every status present."""
    found = Counter(r.status for r in reports)
    return {status: found.get(status, 0) for status in STATUSES}


def summary_line(reports):
    by_status = counts(reports)
    names = sum(1 for r in reports for f in r.findings
                if f.problem in ("missing", "broken", "argument", "unresolved"))
    return ("%d file(s) checked: %d with nothing missing, %d with something missing, %d Python 2, "
            "%d not checked; %d use(s) that would stop a script"
            % (len(reports), by_status["clean"], by_status["missing"], by_status["python2"],
               by_status["unreadable"] + by_status["crash"], names))


def write_text(reports, out):
    findings = [f for r in reports for f in r.findings]
    for title, problems in _SECTIONS:
        lines = [f for f in findings if f.problem in problems]
        if not lines:
            continue
        out.write("%s:\n" % title)
        for f in lines:
            out.write("%s:%d:%d: %s: %s\n" % (f.path, f.line, f.col, f.kind, f.message))
    out.write(summary_line(reports) + "\n")


def write_json(reports, out):
    json.dump({"files": len(reports), "status": counts(reports),
               "missing": sum(1 for r in reports for f in r.findings
                              if f.problem in ("missing", "broken", "argument", "unresolved")),
               "file_status": {r.path: r.status for r in reports},
               "findings": [f._asdict() for r in reports for f in r.findings]}, out, indent=1)
    out.write("\n")
