"""Reading a file as Python would: bytes, then an encoding, then a syntax tree or the reason why not.

Python decodes a source file by its byte-order mark or its encoding
declaration (``# -*- coding: latin-1 -*-``), UTF-8 otherwise, so the check
does the same (``importlib.util.decode_source``, ``ast.parse`` of the bytes)
and reads every file Python could run.  A file Python cannot decode or parse
is not checked; ``Source.problem`` says why, and ``python2.syntax_of`` tells
Python 2 code apart from other files that do not parse.
"""

import ast
import importlib.util
from collections import namedtuple

# ``text`` is the decoded source ("" if it could not be decoded); ``tree`` the
# module's syntax tree or None; ``problem`` None or a SyntaxError/ValueError/
# OSError saying why there is no tree.
Source = namedtuple("Source", "path text tree problem")


def read_source(path):
    """The file at ``path`` decoded and parsed as the interpreter would."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        return Source(path, "", None, err)
    try:
        text = importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as err:
        return Source(path, "", None, err)
    try:
        return Source(path, text, ast.parse(data, path), None)
    except (SyntaxError, ValueError) as err:  # ValueError: null bytes in the source
        return Source(path, text, None, err)


def problem_line(problem):
    """The line a problem points at (0 when it has none)."""
    return getattr(problem, "lineno", None) or 0


def describe_problem(problem):
    """One line: what Python says about the file."""
    if isinstance(problem, SyntaxError):
        return "%s: %s" % (type(problem).__name__, problem.msg)
    if isinstance(problem, OSError):
        return "%s: %s" % (type(problem).__name__, problem.strerror or problem)
    return "%s: %s" % (type(problem).__name__, problem)
