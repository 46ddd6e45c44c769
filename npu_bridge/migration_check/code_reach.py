"""A name that exists is not a name that works: the module-level names a function's code reaches.

A library function can be there and still fail the first time it runs:
tf-slim's ``batch_norm`` builds ``normalization_layers.BatchNormalization``,
which TensorFlow 2.15 loads lazily from ``tf_keras``, a package that is not
installed, so every slim model with batch norm stops at its first layer.
Calling library functions to find out is neither cheap nor safe, so the
resolver reads their source instead (in the resolver process only): each
attribute chain that starts at one of the function's globals and walks
through modules (``normalization_layers.BatchNormalization``,
``ops.Tensor``) is looked up as the running function would look it up.  If
one raises, the name does not work, and the answer carries the chain and
the error.

Read is the source of the function itself, decorators unwrapped, with what
is nested in it; for a class, its own ``__init__`` (the code that runs when
a script makes one).  Chains are tried in source order, so the failure
named is the first the code reaches.  The functions it calls are not read:
they are often called only for some argument values (tf-slim's
``create_train_op`` calls ``multiply_gradients``, which fails here, only
when given gradient multipliers), and a chain in a branch of the function
itself that the call does not take is the same risk, one level smaller.  A function whose whole body is one ``raise`` (a stub
such as ``npu_ops.outfeed_enqueue_op``) does not work either; a class's
``__init__`` that raises is left alone, as it may be there for subclasses to
replace.  Left alone, as the
script's checks are: chains inside a ``try`` whose ``except`` catches the
error, under a Python-version test, or whose attribute the code names in a
string (``hasattr(module, "name")``); names bound in the function, globals
not defined (yet), and attributes of anything but a module (they depend on
values).
"""

import ast
import inspect
import textwrap
import types

from npu_bridge.migration_check import context

def _own_functions(obj):
    """The Python functions whose code runs when a script uses ``obj`` (a function or class)."""
    if inspect.isclass(obj):
        candidates = [vars(obj)["__init__"]] if "__init__" in vars(obj) else []
    else:
        candidates = [obj]
    found = []
    for candidate in candidates:
        try:
            candidate = inspect.unwrap(candidate)
        except ValueError:  # a __wrapped__ cycle
            continue
        if inspect.isfunction(candidate):
            found.append(candidate)
    return found


def _source_tree(function):
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError, IndentationError, ValueError):
        return None  # no source (compiled, generated) or a lambda inside a longer line


def _outer_chains(tree):
    """(Name node, attrs, caught, versioned) for each outermost ``name.attr...`` chain."""
    inner = set()
    for node, caught, versioned in context.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        attrs, value = [], node
        while isinstance(value, ast.Attribute):
            attrs.append(value.attr)
            if value is not node:
                inner.add(id(value))
            value = value.value
        if isinstance(value, ast.Name) and isinstance(value.ctx, ast.Load):
            yield value, tuple(reversed(attrs)), caught, versioned


def _stub_raises(tree):
    """The exception name a function whose body is one unconditional ``raise`` raises, or None."""
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    body = [s for s in definition.body if not (isinstance(s, ast.Expr)
                                               and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return None
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return raised.attr if isinstance(raised, ast.Attribute) else getattr(raised, "id", None)


def _error_text(error):
    try:
        return "%s: %s" % (type(error).__name__, error)
    except Exception:  # noqa: BLE001 (an exception whose __str__ fails still has a type)
        return type(error).__name__


def _first_failure(function, whole, cache):
    """The first failure in ``function``'s code, cached by code object."""
    key = (id(function.__code__), whole)
    if key not in cache:
        cache[key] = _read_failure(function, whole)
    return cache[key]


def _read_failure(function, whole):
    tree = _source_tree(function)
    if tree is None:
        return None
    where = "%s.%s" % (function.__module__, function.__qualname__)
    raised = _stub_raises(tree) if whole else None
    if raised is not None:
        return ("its code (%s) always raises %s" % (where, raised),
                [raised, "Exception", "BaseException"])
    local = context.bound_names(ast.walk(tree))
    named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
             and isinstance(n.value, str)}
    function_globals = function.__globals__
    chains = sorted(_outer_chains(tree), key=lambda c: (c[0].lineno, c[0].col_offset))
    for root, attrs, caught, versioned in chains:  # in source order: the first that runs
        if versioned or root.id in local or root.id not in function_globals:
            continue
        current = function_globals[root.id]
        for index, attr in enumerate(attrs):
            if not isinstance(current, types.ModuleType):
                break
            try:
                current = getattr(current, attr)
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # noqa: B036 (whatever the lookup raises is the answer)
                mro = [cls.__name__ for cls in type(error).__mro__]
                if context.catches(caught, mro) or (isinstance(error, AttributeError)
                                                    and attr in named):
                    break
                spelled = ".".join((root.id,) + attrs[:index + 1])
                return ("its code (%s) uses %s, which raises %s"
                        % (where, spelled, _error_text(error)), mro)
    return None


def failing_reference(obj, cache):
    """(why ``obj`` does not work, the exception's class names), or None if nothing fails.

    ``cache`` maps a code object's id to its result, so each function is read once.
    """
    whole = not inspect.isclass(obj)  # a class's __init__ may be meant for subclasses to replace
    for function in _own_functions(obj):
        failure = _first_failure(function, whole, cache)
        if failure is not None:
            return failure
    return None
