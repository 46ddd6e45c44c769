"""A job started by npu-bridge-launch ends when a scheduler ends it.

Schedulers send SIGTERM and SIGKILL 30 s later (Kubernetes' default, Slurm's
KillWait); some kill only the launcher. So: SIGTERM to the launcher ends a
2-rank job, with a checkpoint at the step both ranks reached, within 30 s,
whatever its seed, optimizer and model_dir layout; SIGKILL to the launcher
alone leaves no rank running.
"""
import os
import re
import signal
import time

import pytest
import tensorflow as tf

from distributed_util import (collect_output, kill_group, kill_pids, pids_in, start_launcher,
                              wait_for_lines, wait_gone)

pytestmark = pytest.mark.timeout(240)

GRACE_PERIOD = 30  # seconds between SIGTERM and SIGKILL (Kubernetes, Slurm)

# Each factor of the issue (seed, optimizer, model_dir layout) takes both values.
CASES = {
    "seed-plain-own_dirs": ["--seed", "--own-model-dir"],
    "noseed-plain-shared_dir": [],
    "seed-npu_distributed-shared_dir": ["--seed", "--distributed-optimizer"],
    "noseed-npu_distributed-own_dirs": ["--distributed-optimizer", "--own-model-dir"],
}


def _start_training(tmp_path, flags):
    proc = start_launcher(2, "stop_job.py", tmp_path / "model", *flags)
    lines, reader = collect_output(proc)
    ready = wait_for_lines(lines, ["TRAINING rank=0", "TRAINING rank=1"], 120)
    assert ready, "".join(lines)[-3000:]
    return proc, lines, reader


@pytest.mark.parametrize("flags", list(CASES.values()), ids=list(CASES))
def test_sigterm_to_the_launcher_ends_the_job_within_the_grace_period(tmp_path, flags):
    proc = pids = None
    try:
        proc, lines, reader = _start_training(tmp_path, flags)
        pids = pids_in("".join(lines))
        time.sleep(2)  # some loops into training
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        rc = proc.wait(timeout=90)
        elapsed = time.monotonic() - start
        reader.join(timeout=5)
        out = "".join(lines)
        assert rc == 128 + signal.SIGTERM, out[-3000:]
        assert elapsed < GRACE_PERIOD, (elapsed, out[-3000:])
        assert wait_gone(pids) == [], out[-3000:]
        ends = dict((int(r), (int(s), d)) for r, s, d in
                    re.findall(r"VARS rank=(\d) step=(\d+) digest=(\w+)", out))
        assert sorted(ends) == [0, 1], out[-3000:]
        assert ends[0][0] == ends[1][0] > 0, out[-3000:]  # both stopped after the same loop
        if "--distributed-optimizer" in flags:
            assert ends[0][1] == ends[1][1], out[-3000:]  # and hold the same variables
        rank0_dir = tmp_path / "model" / ("r0" if "--own-model-dir" in flags else "")
        saved = tf.train.latest_checkpoint(str(rank0_dir))
        assert saved and saved.endswith("-%d" % ends[0][0]), (saved, out[-3000:])
        assert "every rank agreed" in out, out[-3000:]  # the stop logs what it waits for
    finally:
        if proc is not None:
            kill_group(proc)
        kill_pids(pids or [])


def test_ranks_end_when_their_launcher_is_sigkilled(tmp_path):
    proc = pids = None
    try:
        proc, lines, _ = _start_training(tmp_path, ["--distributed-optimizer"])
        pids = pids_in("".join(lines))
        assert len(pids) == 2, "".join(lines)[-3000:]
        os.kill(proc.pid, signal.SIGKILL)  # the launcher alone, not its ranks' groups
        proc.wait()
        assert wait_gone(pids, seconds=10) == [], "".join(lines)[-3000:]
    finally:
        if proc is not None:
            kill_group(proc)
        kill_pids(pids or [])
