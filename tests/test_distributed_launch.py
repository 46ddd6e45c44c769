"""The launcher stops every rank when one fails or on Ctrl-C, within bounded time."""
import signal
import time

import pytest

from distributed_util import (collect_output, kill_group, pids_in, start_launcher,
                              wait_for_lines, wait_gone)

pytestmark = pytest.mark.timeout(90)


def test_killed_rank_stops_the_job_within_30s():
    start = time.monotonic()
    proc = start_launcher(2, "die_midway.py", "--victim", "1", "--after", "5")
    try:
        lines, reader = collect_output(proc)
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
        lines, reader = collect_output(proc)
        assert wait_for_lines(lines, ["STEPPING rank=1"], 45), "".join(lines)
        assert wait_for_lines(lines, ["STEPPING rank=0"], 10), "".join(lines)
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(timeout=20)
        reader.join(timeout=5)
        out = "".join(lines)
        assert rc == 128 + signal.SIGINT, out
        assert wait_gone(pids_in(out)) == [], out
    finally:
        kill_group(proc)
