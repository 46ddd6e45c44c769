"""The launcher stops every rank when one fails or on Ctrl-C, within bounded time."""
import signal
import threading
import time

import pytest

from distributed_util import kill_group, pids_in, start_launcher, wait_gone

pytestmark = pytest.mark.timeout(90)


def _collect(proc):
    lines = []
    thread = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")),
                              daemon=True)
    thread.start()
    return lines, thread


def _wait_for(lines, text, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sum(text in line for line in list(lines)) >= 1:
            return True
        time.sleep(0.05)
    return False


def test_killed_rank_stops_the_job_within_30s():
    start = time.monotonic()
    proc = start_launcher(2, "die_midway.py", "--victim", "1", "--after", "5")
    try:
        lines, reader = _collect(proc)
        rc = proc.wait(timeout=60)
        elapsed = time.monotonic() - start
        reader.join(timeout=5)
        out = "".join(lines)
        assert rc != 0, out
        assert "rank 1 exited with -9" in out, out
        assert elapsed < 30, (elapsed, out)
        pids = pids_in(out)
        assert len(pids) == 2, out
        assert wait_gone(pids) == [], out
    finally:
        kill_group(proc)


def test_ctrl_c_stops_every_rank():
    proc = start_launcher(2, "die_midway.py", "--victim", "-1")
    try:
        lines, reader = _collect(proc)
        assert _wait_for(lines, "STEPPING rank=1", 45), "".join(lines)
        assert _wait_for(lines, "STEPPING rank=0", 10), "".join(lines)
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=20)
        reader.join(timeout=5)
        out = "".join(lines)
        assert rc == 128 + signal.SIGINT, out
        assert wait_gone(pids_in(out)) == [], out
    finally:
        kill_group(proc)
