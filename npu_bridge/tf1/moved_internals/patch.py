"""The one place that adds names to modules we do not own (TensorFlow's, tf-slim's).

``add_missing_names(module_name, {name: "provider.module:attribute"})``
imports ``module_name`` and sets each name it cannot give itself to the
provider's object.  A name the module already gives (in its namespace or
through its own ``__getattr__``) is left alone, so nothing that works is
changed.  ``"provider.module:"`` (nothing after the colon) means the module
itself.  A provider that cannot be imported (a project that ships its own
``keras`` package, say) leaves that name missing, as TensorFlow 2.15 has it,
rather than stopping the TF1 mode from starting.
"""

import importlib


def resolve(spec):
    """The object named by ``"package.module:attribute"`` (or the module for ``"package.module:"``)."""
    module_name, _, attribute = spec.partition(":")
    obj = importlib.import_module(module_name)
    for part in filter(None, attribute.split(".")):
        obj = getattr(obj, part)
    return obj


def _has(module, name):
    if name in vars(module):
        return True
    try:
        getattr(module, name)
    except Exception:  # noqa: BLE001  (a lazy attribute whose import fails counts as missing)
        return False
    return True


def add_missing_names(module_name, names):
    """Sets each of ``names`` on ``module_name`` that it lacks; returns the names added."""
    module = importlib.import_module(module_name)
    added = []
    for name, spec in names.items():
        if _has(module, name):
            continue
        try:
            provided = resolve(spec)
        except Exception:  # noqa: BLE001  (the name stays missing, as in TensorFlow 2.15)
            continue
        setattr(module, name, provided)
        added.append(name)
    return added
