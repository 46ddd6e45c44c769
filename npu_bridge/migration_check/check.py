"""Checking files: what would stop each script in the TF1 mode, found without running it.

Each file is read as Python reads it (``source``), and with it the modules
of the script's own folder it imports (``local_imports``); a file Python cannot
decode or parse is reported as such, Python 2 code as Python 2 code
(``python2``).  Every other file is scanned (``scan``) and its uses are put
to the resolver process (``resolver_client``), which answers as the TF1
mode itself would: whether each name exists, whether the code of one that
exists reaches a name that fails, and whether a callee accepts the call's
arguments.  A use inside a ``try`` that catches the error it would raise is
the script's own business and is not reported.

A ``FileReport`` has the file's status, one of ``STATUSES`` (the first that
applies, in this order): ``crash`` (the check itself failed on it),
``unreadable`` (Python cannot decode or parse it), ``python2``, ``missing``
(something it uses is missing, broken or rejects its arguments), ``clean``.
"""

import os
from collections import namedtuple

from npu_bridge.migration_check import context, local_imports, python2, scan
from npu_bridge.migration_check.lookup import to_json
from npu_bridge.migration_check.resolver_client import ResolverClient
from npu_bridge.migration_check.source import describe_problem, problem_line, read_source

STATUSES = ("crash", "unreadable", "python2", "missing", "clean")

# ``kind``: the family of the name (tf.contrib, tensorflow, keras, numpy,
# npu_bridge, python2, error); ``problem``: missing, broken, argument,
# unresolved, python2, unreadable, crash; ``name``: as the script writes it;
# ``missing``: the dotted name that fails (empty when none applies).
Finding = namedtuple("Finding", "path line col kind problem name missing message")
FileReport = namedtuple("FileReport", "path status findings")


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


def family(dotted):
    """The kind of a dotted name: which part of what npu_bridge answers for it belongs to."""
    root = dotted.split(".")[0]
    if dotted.startswith(("tensorflow.contrib", "tensorflow_core.contrib")):
        return "tf.contrib"
    if root in ("tensorflow", "tensorflow_core", "tensorflow_estimator"):
        return "tensorflow"
    if root in ("keras", "numpy"):
        return root
    return "npu_bridge"


def _one_line(text):
    return " ".join(str(text).split())


def _use_finding(path, use, answer):
    """The finding for a use and the resolver's answer about it, or None if nothing stops it."""
    status = answer["status"]
    if status == "ok" or context.catches(use.caught, answer.get("error_types", ())):
        return None
    if status == "broken":
        message = "%s exists but does not work here: %s" % (use.written, answer["reason"])
        return Finding(path, use.line, use.col + 1, family(use.dotted), "broken", use.written,
                       use.dotted, message)
    error = _one_line(answer["error"])
    if status == "missing":
        missing = answer["missing"]
        never_bound = " (never bound in this file)" if use.lookups[0].binding[0] == "star" else ""
        message = "%s%s: %s" % (use.written, never_bound, error)
        return Finding(path, use.line, use.col + 1, family(missing), "missing", use.written,
                       missing, message)
    if status == "rejected":
        message = "%s(...) rejects the call's arguments: %s" % (use.written, error)
        return Finding(path, use.line, use.col + 1, family(use.dotted), "argument", use.written,
                       use.dotted, message)
    message = "%s: %s" % (use.written, error)
    return Finding(path, use.line, use.col + 1, family(use.dotted), "unresolved", use.written,
                   use.dotted, message)


class _Scanned:
    """A parsed file's uses, Python 2 findings and own modules, before the resolver answers."""

    def __init__(self, path, tree, script_folder):
        self.path = path
        self.local_files = local_imports.imported_files(tree, path, script_folder)
        file_context = context.Context(tree)
        scanned = scan.scan_file(file_context)
        self.uses = scanned.uses
        self.python2 = [
            Finding(path, line, col + 1, "python2", "python2", name, "",
                    python2.builtin_message(name))
            for line, col, name in python2.builtin_uses(file_context,
                                                        scanned.other_star_imports)]


def _read(path, script_folder):
    """A FileReport for a file that cannot be scanned, or a ``_Scanned``."""
    source = read_source(path)
    if source.problem is not None:
        line, reason = problem_line(source.problem), describe_problem(source.problem)
        what = python2.syntax_of(source.problem, source.text)
        if what is not None:
            message = ("Python 2 code: %s at line %d (Python 3 stops there: %s); its names were "
                       "not checked" % (what, line, reason))
            return FileReport(path, "python2", [
                Finding(path, line, 0, "python2", "python2", "", "", message)])
        message = "Python cannot read or parse this file, not checked: %s" % reason
        return FileReport(path, "unreadable", [
            Finding(path, line, 0, "error", "unreadable", "", "", message)])
    try:
        return _Scanned(path, source.tree, script_folder)
    except Exception as err:  # noqa: BLE001 (a bug of the check must not stop the other files)
        return _crash(path, err)


def _crash(path, err):
    message = "the check itself failed on this file: %s: %s" % (type(err).__name__, err)
    return FileReport(path, "crash", [Finding(path, 0, 0, "error", "crash", "", "", message)])


def _status(findings):
    if any(f.problem == "python2" for f in findings):
        return "python2"
    return "missing" if findings else "clean"


def _answers(client, requests):
    """{request key: answer} for the distinct requests."""
    distinct = list(dict.fromkeys(requests))
    replies = client.answer([to_json(lookup, call) for lookup, call in distinct])
    return dict(zip(distinct, replies))


def _provided(use, names):
    """The first alternative of a use that is provided, or None."""
    return next((l for l in use.lookups if names[(l, None)]["status"] == "ok"), None)


def _answer(use, names, calls):
    """The resolver's answer about a use (None: the name's own answer says it)."""
    provided = _provided(use, names)
    if use.call is None:
        return names[(use.lookups[0], None)] if provided is None else {"status": "ok"}
    if provided is None:
        return None
    return calls[(provided, use.call)]


def _unreached_fallbacks(answered):
    """Ids of the tries whose bodies use names here and all of them work.

    Their name-error handlers (``except AttributeError: np.get_numpy_include()``,
    TF 0.x spellings after ``except:``) are the script's fallback for other
    library versions: with what we provide, the body does not fail there.
    """
    body_uses, failing = set(), set()
    for use, answer in answered:
        if use.in_try is not None:
            body_uses.add(use.in_try)
            if answer is None or answer["status"] != "ok":
                failing.add(use.in_try)
    return body_uses - failing


def _report(scanned, names, calls):
    findings = []
    answered = [(use, _answer(use, names, calls)) for use in scanned.uses]
    unreached = _unreached_fallbacks(answered)
    for use, answer in answered:
        if answer is None or use.in_fallback in unreached:
            continue
        finding = _use_finding(scanned.path, use, answer)
        if finding is not None:
            findings.append(finding)
    findings.extend(scanned.python2)
    findings.sort(key=lambda f: (f.line, f.col))
    return FileReport(scanned.path, _status(findings), findings)


def _read_all(files, follow_imports):
    """Each file read, then (``follow_imports``) the script's own modules it imports, in turn."""
    read, seen = [], set()
    todo = [(path, os.path.dirname(os.path.abspath(path))) for path in files]
    while todo:
        path, script_folder = todo.pop(0)
        key = os.path.realpath(path)
        if key in seen:
            continue
        seen.add(key)
        item = _read(path, script_folder)
        read.append(item)
        if follow_imports and isinstance(item, _Scanned):
            todo.extend((local, script_folder) for local in item.local_files)
    return read


def check_files(files, client, follow_imports=False):
    """A FileReport per file of ``files`` (and, with ``follow_imports``, per module of the
    script's folder they import), in order, answered through ``client``."""
    read = _read_all(files, follow_imports)
    scanned = [r for r in read if isinstance(r, _Scanned)]
    names = _answers(client, [(lookup, None) for s in scanned for use in s.uses
                              for lookup in use.lookups])
    calls = _answers(client, [(_provided(use, names), use.call) for s in scanned
                              for use in s.uses
                              if use.call is not None and _provided(use, names) is not None])
    reports = []
    for item in read:
        if not isinstance(item, _Scanned):
            reports.append(item)
            continue
        try:
            reports.append(_report(item, names, calls))
        except Exception as err:  # noqa: BLE001 (a bug of the check must not stop the other files)
            reports.append(_crash(item.path, err))
    return reports


def check_paths(paths, client=None, follow_imports=True):
    """A FileReport per .py file under ``paths`` and per module of a script's folder that
    they import (``follow_imports``), in file order."""
    files = list(python_files(paths))
    if client is not None:
        return check_files(files, client, follow_imports)
    with ResolverClient() as own_client:
        return check_files(files, own_client, follow_imports)
