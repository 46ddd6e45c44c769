"""``npu-bridge-run [-m module | -c code | script.py] args...``: run a script in the TF1 mode.

The script runs as ``python script.py args`` would run it: ``__name__ ==
"__main__"``, ``sys.argv == [script.py, args...]``, the script's folder first
on ``sys.path`` (``-m``: the current folder; ``-c``: ``sys.argv[0] == "-c"``),
its exceptions and ``sys.exit`` codes reach the caller unchanged.  Only the
TF1 mode (``mode.activate``) is switched on before it.
"""

import os
import runpy
import sys
import types

from npu_bridge.tf1 import imports, mode

USAGE = ("usage: npu-bridge-run [-m module | -c code | script.py] [args...]\n"
         "Runs a TensorFlow 1.15 script unchanged on TensorFlow 2.15 (npu_bridge's TF1 mode).")


def _run_code(source):
    """Runs ``source`` as a fresh ``__main__`` module, as ``python -c`` does."""
    main_module = types.ModuleType("__main__")
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = main_module
    try:
        exec(compile(source, "<string>", "exec"), main_module.__dict__)
    finally:
        sys.modules["__main__"] = saved


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] in ("-m", "-c"):
        if len(argv) < 2:
            print("npu-bridge-run: %s needs an argument\n%s" % (argv[0], USAGE), file=sys.stderr)
            return 2
        kind, target, rest = argv[0], argv[1], argv[2:]
    else:
        kind, target, rest = "script", argv[0], argv[1:]
        if not os.path.exists(target):
            print("npu-bridge-run: can't open file %r: no such file" % target, file=sys.stderr)
            return 2
    mode.activate()
    if kind == "-m":
        imports.script_packages.add(target.split(".")[0])
        sys.argv = [target] + rest  # runpy sets argv[0] to the module's file
        sys.path[0] = os.getcwd()
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    elif kind == "-c":
        sys.argv = ["-c"] + rest
        sys.path[0] = ""
        _run_code(target)
    else:
        sys.argv = [target] + rest
        sys.path[0] = os.path.dirname(os.path.realpath(target))
        runpy.run_path(target, run_name="__main__")
    return 0
