"""Reading a script: the names it takes from the libraries the TF1 mode answers for, and its calls.

Tracked are the roots ``TRACKED_ROOTS``: TensorFlow (as the TF1 mode gives
it, also under TF 1.15's ``tensorflow_core``), the Estimator, standalone
Keras, numpy (TF1-era scripts use its removed aliases), npu_bridge and
hccl.  Every use says *how a script obtains it*, so it can be looked up the
way the script's own code would (``lookups``):

- ``("import", "a.b.c", as_alias)``: ``import a.b.c`` (binds ``a``) or
  ``import a.b.c as x`` (binds ``a.b.c``);
- ``("from", "a.b", "c")``: ``from a.b import c``;
- ``("star", "a.b", "c")``: a name ``c`` the file reads but never binds, in a
  file that does ``from a.b import *`` (several such imports: any may supply
  it; a star import of a module not tracked here may too, so then none is
  assumed);

followed by the attributes the script walks from it (``tf.contrib.layers.
xavier_initializer``: ``import tensorflow`` then ``contrib``, ``layers``,
``xavier_initializer``).  A call of a tracked name also records its
arguments (literal values where the source has them), so the check can ask
whether the callee accepts them.  Each use carries the exception names the
``try`` blocks around it catch.  Aliases are taken from import statements
anywhere in the file and from assignments of a tracked name to a name bound
nowhere else (``slim = tf.contrib.slim``); scoping is not modelled.
"""

import ast
import builtins
from collections import namedtuple

from npu_bridge.migration_check import python2
from npu_bridge.migration_check.lookup import Call, Lookup, lookup_dotted

TRACKED_ROOTS = ("tensorflow", "tensorflow_core", "tensorflow_estimator", "keras", "numpy",
                 "npu_bridge", "hccl")
MODULE_GLOBALS = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                  "__builtins__", "__path__", "__cached__", "__annotations__", "__dict__"}

# ``lookups``: alternatives (any may supply the name); ``call``: a Call or None;
# ``caught``: exception names the enclosing ``try`` bodies catch; ``in_try`` and
# ``in_fallback``: ids of the try whose body / name-error handler holds the use (or None).
Use = namedtuple("Use", "line col written dotted lookups call caught in_try in_fallback",
                 defaults=(None, None))


def _tracked(module):
    return module is not None and module.split(".")[0] in TRACKED_ROOTS


def _chain(node):
    """(root Name node, [attr, ...]) of ``a.b.c``, or (None, None)."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node, list(reversed(attrs))
    return None, None


def _literal(node):
    """The source of ``node`` if it is a literal value (``0.1``, ``"same"``, ``(3, 3)``), else None."""
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return ast.unparse(node)


def _call(node):
    positional = tuple(_literal(a) for a in node.args if not isinstance(a, ast.Starred))
    keywords = tuple((k.arg, _literal(k.value)) for k in node.keywords if k.arg is not None)
    return Call(positional, keywords, any(isinstance(a, ast.Starred) for a in node.args),
                any(k.arg is None for k in node.keywords))


class _Aliases:
    """Names the file binds by importing tracked modules: name -> (binding, attrs)."""

    def __init__(self, file_context):
        self.context = file_context
        self.names, self.imports, self.star_modules, self.other_stars = {}, [], [], False
        for node, caught, _ in file_context.nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _tracked(alias.name):
                        self._import(node, alias, caught)
            elif isinstance(node, ast.ImportFrom):
                self._import_from(node, caught)

    def _import(self, node, alias, caught):
        binding = ("import", alias.name, bool(alias.asname))
        self.imports.append(Use(node.lineno, node.col_offset, alias.name, alias.name,
                                (Lookup(binding, ()),), None, caught,
                                *self.context.try_of(node)))
        if alias.asname:
            self.names[alias.asname] = Lookup(binding, ())
        else:
            root = alias.name.split(".")[0]
            self.names[root] = Lookup(("import", root, False), ())

    def _import_from(self, node, caught):
        stars = any(a.name == "*" for a in node.names)
        if node.level or not _tracked(node.module):
            self.other_stars = self.other_stars or stars
            return
        for alias in node.names:
            if alias.name == "*":
                self.star_modules.append(node.module)
                lookup = Lookup(("import", node.module, True), ())
                self.imports.append(Use(node.lineno, node.col_offset, node.module, node.module,
                                        (lookup,), None, caught, *self.context.try_of(node)))
                continue
            lookup = Lookup(("from", node.module, alias.name), ())
            dotted = node.module + "." + alias.name
            self.imports.append(Use(node.lineno, node.col_offset, dotted, dotted, (lookup,),
                                    None, caught, *self.context.try_of(node)))
            self.names[alias.asname or alias.name] = lookup


def _star_names(file_context, aliases, python2_names):
    """Names read but never bound, supplied by the file's tracked star imports: name -> lookups."""
    if not aliases.star_modules or aliases.other_stars:
        return {}
    bound = set(file_context.bound) | set(dir(builtins)) | MODULE_GLOBALS | set(aliases.names)
    star = {}
    for node, _, _ in file_context.nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                and node.id not in bound and node.id not in python2_names:
            if node.id == "tf":  # npu_init's ``tf`` is the script's TensorFlow
                star[node.id] = (Lookup(("import", "tensorflow", False), ()),)
            else:
                star[node.id] = tuple(Lookup(("star", module, node.id), ())
                                      for module in aliases.star_modules)
    return star


def _add_assigned_aliases(file_context, names):
    """``slim = tf.contrib.slim``: a name bound only there, to a chain on a tracked name, is an
    alias too (so ``slim.batch_norm`` is checked); names maps a name to its lookups."""
    assigns = [node for node, _, _ in file_context.nodes if isinstance(node, ast.Assign)
               and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)]
    for _ in range(4):  # aliases of aliases (flags = tf.app.flags; FLAGS = flags.FLAGS)
        added = False
        for node in assigns:
            target = node.targets[0].id
            if target in names or file_context.bound[target] != 1:
                continue
            root, attrs = _chain(node.value)
            if root is not None and root.id in names:
                names[target] = tuple(Lookup(l.binding, l.attrs + tuple(attrs))
                                      for l in names[root.id])
                added = True
        if not added:
            return


Scan = namedtuple("Scan", "uses other_star_imports")


def scan_file(file_context):
    """A ``Scan`` of one parsed file (its ``context.Context``): the uses, sorted by position,
    and whether it star-imports a module not tracked here (names may come from there).

    Python 2 builtins are never taken as star-imported names (``python2``
    reports them).
    """
    aliases = _Aliases(file_context)
    star = _star_names(file_context, aliases, set(python2.INSTEAD))
    names = dict(star)
    names.update((name, (lookup,)) for name, lookup in aliases.names.items())
    _add_assigned_aliases(file_context, names)
    uses = list(aliases.imports)
    outer_attribute = set()
    for node, caught, _ in file_context.nodes:
        if isinstance(node, ast.Attribute):
            if id(node) in outer_attribute:
                continue
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                continue  # ``tf.contrib._warning = None`` sets a name: its prefix is read alone
            root, attrs = _chain(node)
            inner = node.value
            while isinstance(inner, ast.Attribute):  # only the outermost attribute of a chain
                outer_attribute.add(id(inner))
                inner = inner.value
            if root is not None and root.id in names:
                uses.append(_use(node, root.id, attrs, names[root.id], None, caught,
                                 file_context))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in star \
                and node.id != "tf":
            uses.append(_use(node, node.id, [], star[node.id], None, caught, file_context))
        if isinstance(node, ast.Call):
            root, attrs = _chain(node.func)
            if root is not None and root.id in names and (attrs or root.id != "tf"):
                uses.append(_use(node.func, root.id, attrs, names[root.id], _call(node), caught,
                                 file_context))
    uses = sorted(set(uses), key=lambda u: (u.line, u.col, u.written, u.call is not None))
    return Scan(uses, aliases.other_stars)


def _use(node, root_name, attrs, lookups, call, caught, file_context):
    alternatives = tuple(Lookup(l.binding, l.attrs + tuple(attrs)) for l in lookups)
    written = ".".join([root_name] + list(attrs))
    return Use(node.lineno, node.col_offset, written, lookup_dotted(alternatives[0]),
               alternatives, call, caught, *file_context.try_of(node))
