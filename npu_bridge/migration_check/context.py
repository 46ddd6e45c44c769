"""Where a piece of a script sits: which errors the script catches around it, and version branches.

A script that wraps a use in ``try: ... except ImportError:`` has said what
happens when the name is missing, so a missing name there stops nothing.
``walk(tree)`` yields every node with the exception names caught by the
``try`` bodies it sits in (``"*"`` for a bare ``except``) and whether it is
under a Python-version test (``if six.PY2:``, ``sys.version_info < (3,)``,
``six.PY2 and isinstance(x, unicode)``), where Python 2 names are the
script's own compatibility code.  ``bound_names`` collects every name the
file binds anywhere (scoping is not modelled: a name bound somewhere in the
file counts as bound everywhere in it).  ``Context`` holds both for one
file, so the passes over it walk its tree once.

``try_parts`` says which ``try`` statement's body a node sits in and which
``try``'s fallback (an ``except`` handler for a missing name: ImportError,
AttributeError, NameError, Exception or bare) it sits in; a fallback runs
only when its body fails, which ``check`` judges from the body's uses.
"""

import ast
from collections import Counter

_VERSION_WORDS = ("PY2", "PY3", "version_info", "python_version", "hexversion")


def _mentions_version(node):
    for sub in ast.walk(node):
        word = sub.attr if isinstance(sub, ast.Attribute) else getattr(sub, "id", None)
        if word is None:
            continue
        if word.startswith(("PY2", "PY3", "IS_PY2", "IS_PY3", "is_py2", "is_py3")) \
                or word in _VERSION_WORDS:
            return True
        if word == "version" and isinstance(sub, ast.Attribute) \
                and isinstance(sub.value, ast.Name) and sub.value.id == "sys":
            return True
    return False


def _caught_names(handler_type):
    """Exception names an ``except`` clause catches (``"*"`` for a bare except)."""
    if handler_type is None:
        return {"*"}
    types = handler_type.elts if isinstance(handler_type, ast.Tuple) else [handler_type]
    names = set()
    for node in types:
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        else:
            names.add("*")  # a computed exception type: assume it may catch anything
    return names


def catches(caught, error_types):
    """Whether a ``try`` that catches ``caught`` names stops an error of ``error_types`` (its MRO)."""
    return "*" in caught or any(name in caught for name in error_types)


class Context:
    """One file's nodes with their context (``walk``) and the names it binds, computed once."""

    def __init__(self, tree):
        self.tree = tree
        self.nodes = list(walk(tree))
        self.bound = bound_names(node for node, _, _ in self.nodes)
        self.try_body, self.try_fallback = try_parts(tree)

    def try_of(self, node):
        """(id of the innermost try whose body holds ``node``, id of the innermost try whose
        name-error fallback holds it); None where there is none."""
        return self.try_body.get(id(node)), self.try_fallback.get(id(node))


# What a name the script uses raises when it is missing, and the handlers that catch it too.
_NAME_ERRORS = {"ImportError", "ModuleNotFoundError", "AttributeError", "NameError",
                "Exception", "BaseException", "*"}


def try_parts(tree):
    """({id(node): id(try)} for nodes in a try body, the same for nodes in its fallbacks).

    Inner statements are visited after outer ones, so the innermost try wins.
    """
    body, fallback = {}, {}
    for node in ast.walk(tree):
        if not isinstance(node, _TRY_TYPES):
            continue
        for statement in node.body:
            body.update((id(sub), id(node)) for sub in ast.walk(statement))
        for handler in node.handlers:
            if _caught_names(handler.type) & _NAME_ERRORS:
                fallback.update((id(sub), id(node)) for sub in ast.walk(handler))
    return body, fallback


_NOTHING_CAUGHT = frozenset()
_TRY_TYPES = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)


def walk(tree):
    """(node, caught exception names, under a version test) for every node of ``tree``.

    A parent comes before its children (siblings in no particular order).
    """
    stack = [(tree, _NOTHING_CAUGHT, False)]
    children = ast.iter_child_nodes
    while stack:
        item = stack.pop()
        yield item
        node, caught, versioned = item
        if isinstance(node, _TRY_TYPES):
            guard = set(caught)
            for handler in node.handlers:
                guard |= _caught_names(handler.type)
            guard = frozenset(guard)
            stack.extend((child, guard, versioned) for child in node.body)
            for part in (node.handlers, node.orelse, node.finalbody):
                stack.extend((child, caught, versioned) for child in part)
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)) and _mentions_version(node.test):
            stack.extend((child, caught, True) for child in children(node))
        elif isinstance(node, ast.BoolOp):
            seen_version = versioned
            for value in node.values:
                stack.append((value, caught, seen_version))
                seen_version = seen_version or _mentions_version(value)
        else:
            stack.extend((child, caught, versioned) for child in children(node))


def _arguments(args):
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None]


def bound_names(nodes):
    """Every name ``nodes`` (all of a file's or a function's) bind, with how many places bind
    it: targets, defs, parameters, imports, handlers ... (a Counter)."""
    names = Counter()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names[node.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] += 1
            names.update(_arguments(node.args))
        elif isinstance(node, ast.Lambda):
            names.update(_arguments(node.args))
        elif isinstance(node, ast.ClassDef):
            names[node.name] += 1
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names[node.name] += 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif type(node).__name__ in ("MatchAs", "MatchStar") and node.name:
            names[node.name] += 1
        elif type(node).__name__ == "MatchMapping" and node.rest:
            names[node.rest] += 1
    return names
