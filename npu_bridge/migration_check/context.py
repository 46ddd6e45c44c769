"""Where a piece of a script sits: which errors the script catches around it, and version branches.

A script that wraps a use in ``try: ... except ImportError:`` has said what
happens when the name is missing, so a missing name there stops nothing.
``walk(tree)`` yields every node with the exception names caught by the
``try`` bodies it sits in (``"*"`` for a bare ``except``) and whether it is
under a Python-version test (``if six.PY2:``, ``sys.version_info < (3,)``,
``six.PY2 and isinstance(x, unicode)``), where Python 2 names are the
script's own compatibility code.  It also collects every name the file binds
anywhere (scoping is not modelled: a name bound somewhere in the file counts
as bound everywhere in it).
"""

import ast

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


def walk(tree):
    """(node, caught exception names, under a version test) for every node of ``tree``."""
    stack = [(tree, frozenset(), False)]
    while stack:
        node, caught, versioned = stack.pop()
        yield node, caught, versioned
        children = []
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            guard = set(caught)
            for handler in node.handlers:
                guard |= _caught_names(handler.type)
            children += [(child, frozenset(guard), versioned) for child in node.body]
            rest = node.handlers + node.orelse + node.finalbody
            children += [(child, caught, versioned) for child in rest]
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)) and _mentions_version(node.test):
            children += [(child, caught, True) for child in ast.iter_child_nodes(node)]
        elif isinstance(node, ast.BoolOp):
            seen_version = versioned
            for value in node.values:
                children.append((value, caught, seen_version))
                seen_version = seen_version or _mentions_version(value)
        else:
            children += [(child, caught, versioned) for child in ast.iter_child_nodes(node)]
        stack.extend(reversed(children))


def _arguments(args):
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            if a is not None]


def bound_names(tree):
    """Every name the file binds anywhere: targets, defs, parameters, imports, handlers ..."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
            names.update(_arguments(node.args))
        elif isinstance(node, ast.Lambda):
            names.update(_arguments(node.args))
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif type(node).__name__ in ("MatchAs", "MatchStar") and node.name:
            names.add(node.name)
        elif type(node).__name__ == "MatchMapping" and node.rest:
            names.add(node.rest)
    return names
