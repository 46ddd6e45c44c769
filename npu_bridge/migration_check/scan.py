"""Reading a script: the dotted names it takes from TensorFlow, tf.contrib, npu_bridge and hccl.

A *use* is ``(line, col, written, dotted, alternatives)``: ``written`` is the
name as the script spells it (``tf.contrib.layers.xavier_initializer``),
``dotted`` the same name from its module root
(``tensorflow.contrib.layers.xavier_initializer``), ``alternatives`` other
dotted names that would supply it too (a name star-imported from several
modules).
Aliases come from import statements anywhere in the file (``import
tensorflow as tf``, ``import tensorflow.contrib.slim as slim``, ``from
npu_bridge.estimator.npu import npu_config``); attribute chains on an alias
become one use each, as long as they go.  A name the file never binds but
reads, in a file that star-imports an npu_bridge or hccl module, is taken
from that module.  Scoping is not modelled: an alias is an alias everywhere
in its file.
"""

import ast
import builtins
from collections import namedtuple

TRACKED_ROOTS = ("tensorflow", "npu_bridge", "hccl")
MODULE_GLOBALS = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                  "__builtins__", "__path__", "__cached__", "__annotations__", "__dict__"}

Use = namedtuple("Use", "line col written dotted alternatives", defaults=((),))


def _tracked(module):
    return module is not None and module.split(".")[0] in TRACKED_ROOTS


class _Bindings(ast.NodeVisitor):
    """Every name the file binds anywhere (targets, defs, params, imports ...)."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def _function(self, node):
        self.names.add(node.name)
        args = node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if arg is not None:
                self.names.add(arg.arg)
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node):
        args = node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if arg is not None:
                self.names.add(arg.arg)
        self.generic_visit(node)

    def visit_ClassDef(self, node):
        self.names.add(node.name)
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self.names.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node):
        for alias in node.names:
            if alias.name != "*":
                self.names.add(alias.asname or alias.name)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node):
        self.names.update(node.names)

    visit_Nonlocal = visit_Global

    def visit_MatchAs(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.names.add(node.name)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.names.add(node.rest)
        self.generic_visit(node)


def _chain(node):
    """(root Name node, [attr, ...]) of ``a.b.c``, or (None, None)."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node, list(reversed(attrs))
    return None, None


def scan_source(source, filename="<string>"):
    """The uses of one file's source; raises SyntaxError if it does not parse."""
    tree = ast.parse(source, filename)
    aliases, uses, star_modules, other_stars = {}, [], [], False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _tracked(alias.name):
                    continue
                uses.append(Use(node.lineno, node.col_offset, alias.name, alias.name))
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    aliases[root] = root
        elif isinstance(node, ast.ImportFrom):
            if node.level or not _tracked(node.module):
                if any(a.name == "*" for a in node.names):
                    other_stars = True
                continue
            for alias in node.names:
                if alias.name == "*":
                    star_modules.append(node.module)
                    uses.append(Use(node.lineno, node.col_offset, node.module, node.module))
                    continue
                dotted = node.module + "." + alias.name
                uses.append(Use(node.lineno, node.col_offset, dotted, dotted))
                aliases[alias.asname or alias.name] = dotted

    if star_modules and not other_stars:
        bindings = _Bindings()
        bindings.visit(tree)
        bound = bindings.names | set(dir(builtins)) | MODULE_GLOBALS | set(aliases)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and node.id not in bound:
                # ``tf`` from npu_init is the script's TensorFlow (TF1 API in the TF1 mode).
                candidates = [module + "." + node.id for module in star_modules]
                aliases[node.id] = "tensorflow" if node.id == "tf" else candidates[0]
                if node.id != "tf":
                    uses.append(Use(node.lineno, node.col_offset, node.id, candidates[0],
                                    tuple(candidates[1:])))

    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or isinstance(parents.get(node), ast.Attribute):
            continue  # only the outermost attribute of a chain
        root, attrs = _chain(node)
        if root is None or root.id not in aliases:
            continue
        written = ".".join([root.id] + attrs)
        uses.append(Use(node.lineno, node.col_offset, written, ".".join([aliases[root.id]] + attrs)))
    return sorted(set(uses))
