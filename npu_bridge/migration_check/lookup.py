"""What the check asks the resolver: how a script obtains a name, and the arguments of a call.

Shared by the scan (which writes lookups) and the resolver process (which
answers them); both sides speak it as JSON lines.  A ``Lookup`` is a binding,
how the script's code gets the first object, and the attributes it walks
from there:

- ``("import", "a.b.c", as_alias)``: ``import a.b.c`` (binds ``a``) or
  ``import a.b.c as x`` (binds ``a.b.c``);
- ``("from", "a.b", "c")``: ``from a.b import c``;
- ``("star", "a.b", "c")``: ``c`` as ``from a.b import *`` supplies it.

A ``Call`` holds a call's arguments as the source has them: one literal's
source text (``0.1``, ``'same'``, ``(3, 3)``) or None per argument.
"""

from collections import namedtuple

Lookup = namedtuple("Lookup", "binding attrs")
# ``positional``: literal source or None per positional argument; ``keywords``:
# (name, literal source or None) pairs; the flags: ``*args`` / ``**kw`` present.
Call = namedtuple("Call", "positional keywords star_args star_kwargs")


def binding_dotted(binding):
    """The dotted name of the object a binding gives (``import a.b`` without alias gives ``a``)."""
    kind, module, rest = binding
    if kind == "import":
        return module if rest else module.split(".")[0]
    return module + "." + rest


def lookup_dotted(lookup, count=None):
    """The dotted name of a lookup, or of its binding and first ``count`` attributes."""
    attrs = list(lookup.attrs if count is None else lookup.attrs[:count])
    return ".".join([binding_dotted(lookup.binding)] + attrs)


def to_json(lookup, call=None):
    request = {"binding": list(lookup.binding), "attrs": list(lookup.attrs)}
    if call is not None:
        request["call"] = {"positional": list(call.positional),
                           "keywords": [list(k) for k in call.keywords],
                           "star_args": call.star_args, "star_kwargs": call.star_kwargs}
    return request


def from_json(request):
    lookup = Lookup(tuple(request["binding"]), tuple(request["attrs"]))
    call = request.get("call")
    if call is not None:
        call = Call(tuple(call["positional"]), tuple(tuple(k) for k in call["keywords"]),
                    call["star_args"], call["star_kwargs"])
    return lookup, call
