"""A script's own modules: the files its imports load from the script's folder.

``npu-bridge-run train.py`` puts the script's folder first on ``sys.path``,
so ``import model`` or ``from vgg16 import preprocessing`` load the
project's own files, and a name missing there stops the script as surely as
one in ``train.py``.  So when the check is given a script, it also checks
the modules the script imports from its folder, and theirs in turn:
absolute imports are looked for under the script's folder (``x/y.py``,
``x/y/__init__.py``, and for ``from x import y`` also ``x/y.py``), relative
imports next to the importing file.  Imports the script makes possible at
run time (``sys.path.append``) are not followed.
"""

import ast
import os


def _candidates(base, dotted):
    path = os.path.join(base, *dotted.split(".")) if dotted else base
    return [path + ".py", os.path.join(path, "__init__.py")]


def _package_inits(base, dotted):
    """The ``__init__.py`` files Python runs on the way to ``dotted`` (``x`` for ``x.y``)."""
    parts = dotted.split(".")[:-1]
    return [os.path.join(base, *parts[:i], "__init__.py") for i in range(1, len(parts) + 1)]


def imported_files(tree, path, script_folder):
    """The existing .py files the imports of ``tree`` (the file at ``path``) load from the
    script's folder or, for relative imports, from the file's package."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found += _package_inits(script_folder, alias.name)
                found += _candidates(script_folder, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = os.path.dirname(path)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
            else:
                base = script_folder
            module = node.module or ""
            if module:
                found += _package_inits(base, module + ".x")
                found += _candidates(base, module)
            for alias in node.names:
                if alias.name != "*":
                    found += _candidates(base, ".".join(p for p in (module, alias.name) if p))
    return [f for f in dict.fromkeys(found) if os.path.isfile(f)]
