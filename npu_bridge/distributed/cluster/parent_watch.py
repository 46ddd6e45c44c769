"""Ranks started by ``npu-bridge-launch`` die with it, whatever kills it.

The launcher forwards SIGTERM/SIGINT to its ranks and stops them when one
fails. A launcher that is killed outright (SIGKILL from a user, the OOM
killer, a scheduler at the end of its grace period that signals only the
process it started) can forward nothing: its ranks would train on as orphans,
holding CPUs, GPUs and ports, with nobody to stop them.

So each rank is started through this module (``python -m
npu_bridge.distributed.cluster.parent_watch LAUNCHER_PID -- command...``): it asks
Linux to send the process SIGKILL when its parent dies
(``prctl(PR_SET_PDEATHSIG)``, kept across ``exec``), checks that the parent
has not already died before that call took effect, then ``exec``s the rank's
command in place (same PID, nothing stays in between). Killing the launcher
then ends its ranks as a process-group kill would: what the last checkpoint
holds is kept, nothing after it. This module imports nothing heavy, so it
costs one short interpreter start per rank.

Where ``prctl`` does not exist (not Linux) the command runs as it is, with a
warning: its ranks then outlive a killed launcher.
"""

import ctypes
import ctypes.util
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PARENT_GONE_STATUS = 128 + signal.SIGKILL  # as if the death signal had come


def wrap(command, parent_pid=None):
    """``command`` (an argv list) prefixed so that it dies with ``parent_pid`` (default: us)."""
    parent_pid = os.getpid() if parent_pid is None else parent_pid
    return [sys.executable, "-m", __name__, str(parent_pid), "--"] + list(command)


def die_with_parent(parent_pid):
    """Sets SIGKILL as this process's parent-death signal; False where Linux's prctl is missing.

    Exits at once if the parent is no longer ``parent_pid`` (it died before
    the call, and this process was handed to another one).
    """
    libc_name = ctypes.util.find_library("c")
    prctl = getattr(ctypes.CDLL(libc_name, use_errno=True), "prctl", None) if libc_name else None
    if prctl is None or not sys.platform.startswith("linux"):
        return False
    if prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return False
    if os.getppid() != parent_pid:
        os._exit(PARENT_GONE_STATUS)  # pylint: disable=protected-access
    return True


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: python -m %s PARENT_PID -- command [args...]\n" % __name__)
        return 2
    if not die_with_parent(int(argv[0])):
        sys.stderr.write("npu_bridge: no parent-death signal on this system (%s): this rank "
                         "keeps running if its launcher is killed\n" % sys.platform)
    command = argv[2:]
    os.execvp(command[0], command)
    return 127  # not reached: execvp raises or replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
