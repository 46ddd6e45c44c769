"""The package's imports point down its layers and form no cycle; its original paths only re-export.

The layer order is written once, in ``npu_bridge/__init__.py``'s docstring
(and, for the groups of a folder such as ``distributed``, in that folder's
``__init__.py``); this test reads it and every import of ``npu_bridge`` and
``hccl`` (with ast: module-level and function-level imports, and
``importlib.import_module`` of a literal name), and fails naming the file, the
line and the two layers.
"""

import ast
import functools
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
PACKAGES = ("npu_bridge", "hccl")


def _modules():
    """{module name: path} of every .py file in the packages."""
    found = {}
    for package in PACKAGES:
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts.pop()
                    found[".".join(parts)] = path
    return found


MODULES = _modules()


def _doc(module):
    with open(MODULES[module]) as f:
        return ast.get_docstring(ast.parse(f.read())) or ""


def _package_doc():
    return _doc("npu_bridge")


def read_layers(doc):
    """{unit: layer number} from the docstring's "N. title: a, b, c" lines."""
    layers = {}
    for number, names in re.findall(r"^\s*(\d+)\.\s[^:\n]*:\s*(.+)$", doc, re.M):
        for name in names.split(","):
            layers[name.strip()] = int(number)
    return layers


def unit(module, package="npu_bridge"):
    """The part of ``package`` a module belongs to: for npu_bridge, hccl.* -> hccl and
    npu_bridge.X[.…] -> X; for a folder P, P.X[.…] -> X (None outside P or for P itself)."""
    parts = module.split(".")
    if package == "npu_bridge" and parts[0] == "hccl":
        return "hccl"
    depth = package.count(".") + 1
    if parts[:depth] != package.split(".") or len(parts) <= depth:
        return None
    return parts[depth]


def _resolve(name):
    """The module of ours an imported dotted name refers to (a module or its package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _package_of(module):
    return module if MODULES[module].endswith("__init__.py") else module.rpartition(".")[0]


@functools.lru_cache(maxsize=None)
def imports(module):
    """[(line, imported module of ours)] of ``module``, at any depth of its code."""
    with open(MODULES[module]) as f:
        tree = ast.parse(f.read(), MODULES[module])
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package_of(module).split(".")
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            names = [base + "." + alias.name for alias in node.names] or [base]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            names = [node.args[0].value]
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                found.append((node.lineno, target))
    return found


def _where(module):
    return os.path.relpath(MODULES[module], ROOT)


def test_every_part_of_the_package_has_a_layer():
    layers = read_layers(_package_doc())
    assert layers, "npu_bridge's docstring lists no layers"
    missing = sorted({unit(m) for m in MODULES} - set(layers) - {None})
    assert not missing, ("these parts of the package are in no layer of npu_bridge's "
                         "docstring: %s" % ", ".join(missing))


def _layered_packages():
    """{package: {part: layer}} for the package and each folder whose docstring lists layers."""
    found = {}
    for module, path in MODULES.items():
        if path.endswith("__init__.py") and module.startswith("npu_bridge"):
            layers = read_layers(_doc(module))
            if layers:
                found[module] = layers
    return found


def test_the_groups_of_a_folder_have_a_layer_each():
    for package, layers in _layered_packages().items():
        if package == "npu_bridge":
            continue
        parts = {unit(m, package) for m in MODULES} - {None}
        folders = {p for p in parts if package + "." + p in MODULES
                   and MODULES[package + "." + p].endswith("__init__.py")}
        missing = sorted(folders - set(layers))
        assert not missing, "%s's docstring gives no layer to %s" % (package, ", ".join(missing))


def test_imports_point_down_the_layers():
    wrong = []
    for package, layers in sorted(_layered_packages().items()):
        for module in sorted(MODULES):
            here = unit(module, package)
            for line, target in sorted(set(imports(module))):
                there = unit(target, package)
                if here is None or there is None or here == there:
                    continue
                if layers.get(there, 0) > layers.get(here, 0):
                    wrong.append("%s:%d imports %s: %s (layer %d) must not import %s (layer %d)"
                                 % (_where(module), line, target, here, layers.get(here, 0),
                                    there, layers.get(there, 0)))
    assert not wrong, "imports that run back up the layers:\n" + "\n".join(wrong)


# What an original path may hold: its docstring, imports, ``__all__``/``__getattr__``
# bindings, and in npu_init the one call that sets the process up.
_SHIM_CALLS = {"npu_bridge.npu_init": {"_set_up_ranks"}}


def _is_re_export(module, node):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True  # the docstring
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) and t.id in ("__all__", "__getattr__")
                   for t in node.targets)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return getattr(node.value.func, "id", None) in _SHIM_CALLS.get(module, ())
    return False


def test_original_paths_only_re_export():
    layers = read_layers(_package_doc())
    shim_layer = layers["npu_init"]
    logic = []
    for module in sorted(MODULES):
        if layers.get(unit(module)) != shim_layer:
            continue
        with open(MODULES[module]) as f:
            tree = ast.parse(f.read())
        logic.extend("%s:%d holds %s" % (_where(module), node.lineno, type(node).__name__)
                     for node in tree.body if not _is_re_export(module, node))
    assert not logic, ("original paths must only re-export; move this code into its "
                       "concept folder:\n" + "\n".join(logic))


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    edges = {}
    graph = {}
    for module in MODULES:
        own_packages = {module.rsplit(".", i)[0] for i in range(module.count(".") + 1)}
        for line, target in imports(module):
            # Importing a.b.c runs a.b's __init__ too; the importer's own packages
            # are running already.
            chain = target.split(".")
            for depth in range(1, len(chain) + 1):
                reached = ".".join(chain[:depth])
                if reached in MODULES and reached not in own_packages:
                    graph.setdefault(module, set()).add(reached)
                    edges.setdefault((module, reached), line)
    cycles = _cycles(graph)
    text = []
    for component in cycles:
        members = set(component)
        text.append("cycle of %d modules:" % len(component))
        text.extend("  %s:%d -> %s" % (_where(a), line, b)
                    for (a, b), line in sorted(edges.items())
                    if a in members and b in members)
    assert not cycles, "\n".join(text)


@pytest.mark.parametrize("source,expected", [
    ("def f():\n    from npu_bridge.core import config\n", [(2, "npu_bridge.core.config")]),
    ("import importlib\nimportlib.import_module('npu_bridge.core.estimator')\n",
     [(2, "npu_bridge.core.estimator")]),
    ("from . import checks\n", [(1, "npu_bridge.common.checks")]),
])
def test_the_reader_sees_imports_at_any_depth(tmp_path, monkeypatch, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source)
    monkeypatch.setitem(MODULES, "npu_bridge.common.probe", str(path))
    imports.cache_clear()
    assert imports("npu_bridge.common.probe") == expected
    imports.cache_clear()
    assert read_layers("  2. b: x, y\n  1. a: z\n") == {"x": 2, "y": 2, "z": 1}


# The TF1 run mode maps TF1 names onto TensorFlow's own modules by design.
_MAY_IMPORT_TF_PRIVATE = ("tf_private", "tf1")


def test_tensorflow_private_modules_are_imported_in_tf_private_only():
    found = []
    for module in sorted(MODULES):
        if unit(module) in _MAY_IMPORT_TF_PRIVATE:
            continue
        with open(MODULES[module]) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found.extend("%s:%d imports %s" % (_where(module), node.lineno, name)
                         for name in names
                         if name.startswith(("tensorflow.python", "tensorflow_estimator.python")))
    assert not found, ("TensorFlow's private modules belong in npu_bridge/tf_private/ (one "
                       "module per TensorFlow area):\n" + "\n".join(found))
