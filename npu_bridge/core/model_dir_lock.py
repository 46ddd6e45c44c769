"""One training process per model_dir.

A user who starts a job twice gets two processes training into one model_dir:
their checkpoints interleave and every host_call record is written twice. So
``train()`` holds a lock on ``<model_dir>/.npu_bridge/train.lock`` while it
runs, and a second process's ``train()`` fails at once (it does not wait),
naming the model_dir and the host and pid of the process that holds it.

The lock is a POSIX record lock (``fcntl.lockf``), which the kernel releases
when its holder exits in any way, SIGKILL and OOM kill included: a dead holder
leaves nothing that blocks the next run (the file stays; only the lock counts).
It is not inherited by child processes, and on NFS it is the server's lock
(NLM or NFSv4), so it holds across machines; when a whole client machine dies
the server frees its locks when its lease runs out (NFSv4: about 90 s). NFS
mounted with ``nolock`` locks within one machine only. On a filesystem without
locks or a non-local model_dir (``gs://``, ``hdfs://``) training goes on
unlocked, logged once.

Who is "one process": ranks of one job that share a model_dir are one writer
(the lowest of them writes and holds the lock, see
``distributed.sessions.rank_model_dir``); ``evaluate()``, ``predict()`` and exports only
read checkpoints and take no lock, so an evaluator process may run beside a
training one, as ``train_and_evaluate`` with a separate evaluator does. Within
one process the lock is held once however many ``train()`` calls use it.
"""

import contextlib
import errno
import fcntl
import os
import socket
import threading
import time

import tensorflow as tf

from npu_bridge.distributed.sessions import rank_model_dir

LOCK_NAME = "train.lock"

# POSIX locks belong to the process: closing any descriptor of the file drops
# them. So each model_dir is opened once per process: realpath -> [fd, users].
_held = {}
_held_lock = threading.Lock()
_unlockable_logged = set()


class ModelDirBusyError(RuntimeError):
    """Another process is training into this model_dir."""


def _is_local(model_dir):
    return "://" not in model_dir


def _holder(fd):
    """What the holder wrote into the lock file, as text for a message."""
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    fields = dict(item.split("=", 1) for item in text.split() if "=" in item)
    if "pid" not in fields:
        return "a process that has not written its host and pid yet"
    return "process %s on host %s (training since %s)" % (
        fields["pid"], fields.get("host", "?"), fields.get("since", "?"))


def _lock_path(model_dir):
    folder = os.path.join(model_dir, rank_model_dir.STATE_DIR)
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, LOCK_NAME)


def _take(model_dir, path):
    """An open descriptor holding the lock on ``path``; raises ModelDirBusyError."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        try:
            if error.errno in (errno.EACCES, errno.EAGAIN):
                raise ModelDirBusyError(
                    "model_dir %r is in use: %s is training into it. Two trainings into "
                    "one model_dir would mix their checkpoints and write every host_call "
                    "record twice. Wait for it, stop it, or give this run another "
                    "model_dir." % (model_dir, _holder(fd))) from None
            raise
        finally:
            os.close(fd)
    os.ftruncate(fd, 0)
    os.pwrite(fd, ("host=%s pid=%d since=%s\n" % (
        socket.gethostname(), os.getpid(),
        time.strftime("%Y-%m-%dT%H:%M:%S%z"))).encode("utf-8"), 0)
    return fd


def _unlocked(model_dir, error):
    if model_dir not in _unlockable_logged:
        _unlockable_logged.add(model_dir)
        tf.compat.v1.logging.warning(
            "npu_bridge: model_dir %s cannot be locked (%s); training goes on without "
            "the check that no other process trains into it.", model_dir, error)


def acquire(model_dir):
    """Hold ``model_dir`` for this process; returns the key for ``release``, or None
    when it cannot be locked (non-local, or a filesystem without locks)."""
    if not _is_local(model_dir):
        _unlocked(model_dir, "not a local or NFS path")
        return None
    key = os.path.realpath(model_dir)
    with _held_lock:
        if key in _held:
            _held[key][1] += 1
            return key
        try:
            fd = _take(model_dir, _lock_path(model_dir))
        except OSError as error:  # ENOLCK, EOPNOTSUPP, a read-only folder ...
            _unlocked(model_dir, error)
            return None
        _held[key] = [fd, 1]
        return key


def release(key):
    """Undo one ``acquire``; the last one releases the lock."""
    if key is None:
        return
    with _held_lock:
        entry = _held[key]
        entry[1] -= 1
        if entry[1] == 0:
            del _held[key]
            os.close(entry[0])  # closing the descriptor releases the lock


@contextlib.contextmanager
def train_claim(model_dir):
    """For one train() call: yields whether this rank writes checkpoints to model_dir.

    With ranks, every rank takes part (two off-graph gathers): the rank that
    writes a folder holds its lock, and if any writer cannot, every rank fails
    at once instead of waiting for it in a collective.
    """
    placement = rank_model_dir.RankModelDir(model_dir)
    key, error = None, None
    if placement.placement.writes:
        try:
            key = acquire(model_dir)
        except ModelDirBusyError as busy:
            error = busy
    try:
        placement.confirm(error)
        yield placement.placement.writes
    finally:
        release(key)
