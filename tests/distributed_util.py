"""Helpers for the multi-process tests: run the launcher bounded in time, leave nothing behind."""
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANKS = os.path.join(ROOT, "tests", "ranks")


def env():
    out = dict(os.environ)
    out["PYTHONPATH"] = ROOT + os.pathsep + out.get("PYTHONPATH", "")
    out["TF_CPP_MIN_LOG_LEVEL"] = "2"
    from npu_bridge.distributed.cluster.cluster_sources import VARIABLE_PREFIXES
    for name in [n for n in out if n.startswith(VARIABLE_PREFIXES)]:
        del out[name]  # a test run inside srun/mpirun must not make its children ranks
    return out


def start_launcher(nproc, script, *args):
    cmd = [sys.executable, "-m", "npu_bridge.launch", "-n", str(nproc),
           os.path.join(RANKS, script)] + [str(a) for a in args]
    return subprocess.Popen(cmd, env=env(), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def launch(nproc, script, *args, timeout=90):
    """(returncode, output) of ``npu_bridge.launch -n nproc script args``."""
    proc = start_launcher(nproc, script, *args)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    finally:
        kill_group(proc)


def run_single(script, *args, timeout=60):
    """(returncode, output) of the script as one plain process."""
    proc = subprocess.Popen([sys.executable, os.path.join(RANKS, script)] + [str(a) for a in args],
                            env=env(), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    finally:
        kill_group(proc)


_references = {}


def single_reference(script, *args, timeout=90):
    """(returncode, output, out_prefix) of ``script args`` as one plain process.

    Run once per test session and shared by every test asking for the same
    script and args (the one-process reference is the same for the 127.0.0.1
    and the network-namespace tests).  In ``args``, ``"OUT"`` stands for a
    fresh output prefix and ``"DIR"`` for a fresh directory.
    """
    key = (script,) + tuple(str(a) for a in args)
    if key not in _references:
        import atexit
        import shutil
        import tempfile
        work = tempfile.mkdtemp(prefix="npu_bridge_reference_")
        atexit.register(shutil.rmtree, work, True)
        prefix = os.path.join(work, "single")
        real = [prefix if a == "OUT" else os.path.join(work, "dir") if a == "DIR" else a
                for a in key[1:]]
        rc, out = run_single(script, *real, timeout=timeout)
        _references[key] = (rc, out, prefix)
    return _references[key]


def pids_in(output):
    return [int(p) for p in re.findall(r"PID rank=\d+ pid=(\d+)", output)]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie would still answer; ranks are reaped by the launcher, so check state
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def wait_gone(pids, seconds=5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def free_port_run(count, host="127.0.0.1"):
    """A base port such that base .. base+count-1 were all free on ``host`` a moment ago."""
    import random
    import socket
    for _ in range(200):
        base = random.randint(20000, 60000 - count)
        socks = []
        try:
            for port in range(base, base + count):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(sock)
                sock.bind((host, port))
            return base
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise RuntimeError("no run of %d free ports found on %s" % (count, host))


def run_ranks(rank_envs, script, *args, prefixes=None, timeout=120):
    """Starts one process per env (as a cluster launcher would: env only) and waits.

    ``prefixes[i]`` goes before rank i's interpreter (e.g. ``ip netns exec NS``).  Returns
    [(returncode, output)] in rank order; every process group is killed at the end.
    As soon as one rank fails the others are killed (a collective would wait forever).
    """
    procs = []
    try:
        for i, extra in enumerate(rank_envs):
            prefix = prefixes[i] if prefixes else ()
            rank_env = env()
            rank_env.update(extra)
            procs.append(subprocess.Popen(
                list(prefix) + [sys.executable, os.path.join(RANKS, script)]
                + [str(a) for a in args], env=rank_env, cwd=ROOT, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, start_new_session=True))
        import threading
        outputs = [None] * len(procs)

        def read(i):
            outputs[i] = procs[i].stdout.read()
        readers = [threading.Thread(target=read, args=(i,), daemon=True)
                   for i in range(len(procs))]
        for reader in readers:
            reader.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            codes = [p.poll() for p in procs]
            if all(c is not None for c in codes) or any(c not in (None, 0) for c in codes):
                break
            time.sleep(0.1)
        for proc in procs:
            if proc.poll() is None:
                kill_group(proc)
        for reader in readers:
            reader.join(timeout=5)
        return [(p.returncode, outputs[i] or "") for i, p in enumerate(procs)]
    finally:
        for proc in procs:
            kill_group(proc)


def collect_output(proc):
    """(lines, reader thread): ``proc``'s output lines as they arrive."""
    import threading
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")),
                              daemon=True)
    reader.start()
    return lines, reader


def wait_for_lines(lines, texts, seconds):
    """True once every text in ``texts`` is in some line, False after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        seen = "".join(list(lines))
        if all(text in seen for text in texts):
            return True
        time.sleep(0.05)
    return False


def kill_pids(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def stopped_peer_fails_the_job(proc, lines, reader, rank_timeout):
    """SIGSTOPs rank 1 (a wedged host: alive, silent); rank 0 must fail within the timeout.

    Checks that the launcher ends non-zero because rank 0 exited with 1 naming its
    peer, within ``rank_timeout`` plus a margin, and that no rank is left.
    """
    stopped = int(re.search(r"PID rank=1 pid=(\d+)", "".join(lines)).group(1))
    try:
        os.kill(stopped, signal.SIGSTOP)
        start = time.monotonic()
        rc = proc.wait(timeout=rank_timeout + 60)
        elapsed = time.monotonic() - start
        reader.join(timeout=5)
        out = "".join(lines)
        assert rc != 0, out[-3000:]
        assert "rank 0 exited with 1" in out, out[-3000:]
        assert "a peer is dead or hung (rank 1 at 127.0.0.1:" in out, out[-3000:]
        assert elapsed < rank_timeout + 15, (elapsed, out[-3000:])
        assert wait_gone(pids_in(out)) == [], out[-3000:]
    finally:
        kill_pids([stopped])
