"""Helpers for the TF1-mode tests: run scripts through ``npu-bridge-run`` in subprocesses."""
import json
import os
import subprocess
import sys

from distributed_util import ROOT, env, kill_group

SCRIPTS = os.path.join(ROOT, "tests", "tf1_scripts")


def run_python(args, timeout=120, extra_env=None):
    """(returncode, output) of ``python args...`` from the repository root, bounded in time."""
    environment = env()
    environment.update(extra_env or {})
    proc = subprocess.Popen([sys.executable] + [str(a) for a in args], env=environment, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    finally:
        kill_group(proc)


def run_tf1(script, *args, **kwargs):
    """``python -m npu_bridge.run <script> args``; a relative script is under tests/tf1_scripts."""
    return run_python(["-m", "npu_bridge.run", os.path.join(SCRIPTS, script)] + list(args), **kwargs)


def launch_tf1(nproc, script, *args, **kwargs):
    """``python -m npu_bridge.launch --tf1 -n nproc <script> args``."""
    return run_python(["-m", "npu_bridge.launch", "--tf1", "-n", nproc,
                       os.path.join(SCRIPTS, script)] + list(args), **kwargs)


def tagged_json(output, tag):
    """The JSON object printed after ``tag`` (the last such line)."""
    lines = [line for line in output.splitlines() if line.startswith(tag + " ")]
    assert lines, "no %r line in:\n%s" % (tag, output[-4000:])
    return json.loads(lines[-1][len(tag) + 1:])
