"""Putting lookups to the resolver process, with every wait bounded.

One resolver process (``resolver``) per run answers every lookup in order.
A lookup that hangs (no answer within ``lookup_timeout`` seconds) or ends
the process (a crash, ``os._exit`` in a module) is itself the answer for
that name, ``{"status": "unresolved", "error": ...}``; the process is then
ended (its whole process group, by its id) and a new one answers the rest.
After ``MAX_STARTS`` starts, or when the process cannot start at all, the
lookups left are answered ``unresolved`` too, and ``ResolverUnavailable``
says why when not even one answer came.

Answers are cached by request for the life of the client, so a name used by
a thousand files is looked up once.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading

MAX_STARTS = 8  # a run whose lookups keep killing the resolver stops retrying after this
START_TIMEOUT = 300.0  # importing TensorFlow and Keras on a loaded 2-core machine
LOOKUP_TIMEOUT = 60.0  # a first import of a large package (keras.applications) can take long

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class ResolverUnavailable(RuntimeError):
    """The resolver process could not be started (TensorFlow missing, a broken install ...)."""


def _unresolved(text):
    return {"status": "unresolved", "error": text, "error_types": []}


class _Process:
    """One resolver process and the threads that feed it and read its answers."""

    def __init__(self, workdir, stderr_path):
        env = dict(os.environ)
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        env["PYTHONPATH"] = os.pathsep.join(
            [_PACKAGE_ROOT] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        self.stderr_path = stderr_path
        with open(stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "npu_bridge.migration_check.resolver"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=workdir,
                env=env, start_new_session=True)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.proc.stdout:
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.lines.put(None)

    def send(self, requests):
        def write():
            try:
                for request in requests:
                    self.proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
                self.proc.stdin.flush()
            except (OSError, ValueError):  # the process ended; the reader reports it
                pass
        threading.Thread(target=write, daemon=True).start()

    def receive(self, timeout, why_it_ended=False):
        """The next answer, or a string saying why there is none (with the process's last
        message on stderr if ``why_it_ended``)."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            return "did not finish within %g s" % timeout
        if line is None:
            try:
                code = self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                code = "none: it closed its output and kept running"
            return "ended the resolver process (exit code %s)%s" % (
                code, self._last_error() if why_it_ended else "")
        try:
            return json.loads(line)
        except ValueError:
            return "the resolver wrote an unreadable answer: %r" % line[:200]

    def _last_error(self):
        try:
            with open(self.stderr_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").strip().splitlines()
        except OSError:
            return ""
        return ": %s" % lines[-1].strip()[:300] if lines else ""

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # its own group, started above
            except (ProcessLookupError, PermissionError):
                pass
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.proc.wait()


class ResolverClient:
    """Answers lookups (JSON requests) through one resolver process at a time."""

    def __init__(self, lookup_timeout=LOOKUP_TIMEOUT, start_timeout=START_TIMEOUT):
        self.lookup_timeout = lookup_timeout
        self.start_timeout = start_timeout
        self._workdir = tempfile.TemporaryDirectory(prefix="npu-bridge-check-")
        self._starts = 0
        self._cache = {}
        self._answered = 0
        self.start_error = None
        # Started now, so that importing TensorFlow there overlaps the scan of the files here.
        self._process = self._spawn()
        self._ready = False

    def _spawn(self):
        self._starts += 1
        work = os.path.join(self._workdir.name, "run%d" % self._starts)
        os.mkdir(work)
        return _Process(work, os.path.join(self._workdir.name, "stderr%d" % self._starts))

    def _await_ready(self):
        """Whether the current process said it is ready; if not it is stopped and dropped."""
        ready = self._process.receive(self.start_timeout, why_it_ended=True)
        if ready == {"ready": True}:
            self._ready = True
            return True
        self._process.stop()
        self._process = None
        self.start_error = "the resolver process did not start: %s" % (
            ready if isinstance(ready, str) else "unexpected first line %r" % (ready,))
        return False

    def answer(self, requests):
        """The answers to ``requests``, in order."""
        keys = [json.dumps(r, sort_keys=True) for r in requests]
        todo = [k for k in dict.fromkeys(keys) if k not in self._cache]
        while todo:
            if self._process is None:
                if self._starts >= MAX_STARTS or self.start_error is not None:
                    for key in todo:
                        self._cache[key] = _unresolved(
                            self.start_error or "not looked up: the resolver was restarted "
                            "%d times" % MAX_STARTS)
                    break
                self._process, self._ready = self._spawn(), False
            if not self._ready and not self._await_ready():
                continue
            self._process.send([json.loads(k) for k in todo])
            for index, key in enumerate(todo):
                reply = self._process.receive(self.lookup_timeout)
                if isinstance(reply, dict):
                    self._cache[key] = reply
                    self._answered += 1
                    continue
                self._cache[key] = _unresolved("looking it up %s" % reply)
                self._process.stop()
                self._process, self._ready = None, False
                todo = todo[index + 1:]
                break
            else:
                todo = []
        if self.start_error is not None and not self._answered:
            raise ResolverUnavailable(self.start_error)
        return [self._cache[k] for k in keys]

    def close(self):
        if self._process is not None:
            self._process.stop()
            self._process = None
        self._workdir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
