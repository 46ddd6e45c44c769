"""Telling Python 2 code apart: its syntax, its builtins, and what Python 3 has instead.

Scripts written for Python 2 fail on Python 3 whatever npu_bridge provides,
so the check reports them in a section of their own instead of blaming
their names on ``npu_init``.  Two signs, both general:

- the file does not parse as Python 3 and the line Python stops at is Python
  2 syntax (a ``print`` or ``exec`` statement, ``except E, e``, ``raise E,
  v``, backquotes, ``<>``, ``0777`` / ``10L`` literals, ``ur''`` strings,
  tabs and spaces mixed in one indentation);
- the file parses but reads a Python 2 builtin it never binds (``xrange``,
  ``unicode`` ...) outside the script's own version tests (``if six.PY2:``)
  and outside a ``try`` that catches ``NameError``, or uses ``print >>f``.

``INSTEAD`` says what Python 3 has in place of each builtin; every dotted
name in it is one the tests import.
"""

import ast
import re

from npu_bridge.migration_check import context

# Python 2 builtin -> (the Python 3 name in its place, or None; how to say it).
INSTEAD = {
    "unicode": ("str", "str"),
    "basestring": ("str", "str"),
    "long": ("int", "int"),
    "xrange": ("range", "range"),
    "unichr": ("chr", "chr"),
    "raw_input": ("input", "input"),
    "reload": ("importlib.reload", "importlib.reload"),
    "reduce": ("functools.reduce", "functools.reduce"),
    "intern": ("sys.intern", "sys.intern"),
    "buffer": ("memoryview", "memoryview"),
    "file": ("open", "open"),
    "execfile": ("exec", "exec(open(path).read())"),
    "cmp": ("functools.cmp_to_key", "functools.cmp_to_key to sort with a comparison"),
    "apply": (None, "a direct call, f(*args, **kwargs)"),
    "coerce": (None, "nothing: numbers of different types mix without it"),
}

# (what it is, the SyntaxError message or a regex on the line Python stops at)
_SYNTAX_SIGNS = (
    ("a print statement", "Missing parentheses in call to 'print'", None),
    ("an exec statement", "Missing parentheses in call to 'exec'", None),
    ("an 'except E, name' clause", "multiple exception types must be parenthesized",
     r"^\s*except\s+[^:]+,\s*\w+\s*:"),
    ("an octal literal without 0o", "leading zeros in decimal integer literals", None),
    ("tabs and spaces mixed in an indentation", "inconsistent use of tabs and spaces", None),
    ("a print statement", None, r"^\s*print\s+[^\s(=.,)\]]"),
    ("a 'raise E, value' statement", None, r"^\s*raise\s+[\w.]+\s*,"),
    ("a long literal (10L)", None, r"\b\d+[lL]\b"),
    ("a ur'' string", None, r"\b[uU][rR]['\"]"),
    ("a backquote repr", None, r"`"),
    ("the <> operator", None, r"<>"),
)


def syntax_of(problem, text):
    """What Python 2 syntax made the file unparsable, or None if the reason is something else."""
    if not isinstance(problem, SyntaxError):
        return None
    message = problem.msg or ""
    lines = text.splitlines()
    line = lines[problem.lineno - 1] if problem.lineno and problem.lineno <= len(lines) else ""
    for what, in_message, pattern in _SYNTAX_SIGNS:
        if (in_message and in_message in message) or (pattern and re.search(pattern, line)):
            return what
    return None


def builtin_uses(file_context, other_star_imports):
    """[(line, col, name)] of Python 2 builtins read outside version tests and NameError guards.

    ``file_context`` is the file's ``context.Context``; with
    ``other_star_imports`` (a star import the check cannot see into, e.g.
    ``from six.moves import *``) the names may come from there, so none are
    reported.
    """
    if other_star_imports:
        return []
    uses, bound = [], file_context.bound
    for node, caught, versioned in file_context.nodes:
        if versioned or context.catches(caught, ("NameError", "Exception", "BaseException")):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                and node.id in INSTEAD and node.id not in bound:
            uses.append((node.lineno, node.col_offset, node.id))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.RShift) \
                and isinstance(node.left, ast.Name) and node.left.id == "print" \
                and "print" not in bound:
            uses.append((node.lineno, node.col_offset, "print >>"))
    return sorted(uses)


def builtin_message(name):
    if name == "print >>":
        return "'print >>f, x' is a Python 2 print statement (Python 3: print(x, file=f))"
    return "%s is a Python 2 builtin (Python 3: %s)" % (name, INSTEAD[name][1])
