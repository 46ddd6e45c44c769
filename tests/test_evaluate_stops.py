"""evaluate() under signals and dead peers, and collectives a member never joins.

SIGINT / SIGTERM end an evaluation after its current loop without writing
metrics for it (KeyboardInterrupt, leaving no thread behind / exit 143); with
ranks, a stopped peer makes the others fail within NPU_BRIDGE_RANK_TIMEOUT
during evaluation as during training; a plain-Session group collective that
one member never runs fails within the same bound.
"""
import os
import re
import signal
import subprocess
import sys

import pytest

from conftest import read_scalars
from distributed_util import (ROOT, collect_output, env, kill_group, kill_pids, pids_in,
                              start_launcher, stopped_peer_fails_the_job, wait_for_lines)
from npu_bridge.distributed.cluster.rank_timeout import TIMEOUT_ENV

pytestmark = pytest.mark.timeout(180)

EVALUATOR = os.path.join(ROOT, "tests", "trainers", "evaluate_until_stopped.py")


def test_sigint_then_sigterm_end_evaluations_without_metrics(tmp_path):
    model_dir = tmp_path / "model"
    proc = subprocess.Popen([sys.executable, EVALUATOR, str(model_dir)], env=env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        lines, reader = collect_output(proc)
        assert wait_for_lines(lines, ["EVALUATING 1"], 120), "".join(lines)[-3000:]
        proc.send_signal(signal.SIGINT)
        assert wait_for_lines(lines, ["INTERRUPTED", "EVALUATING 2"], 60), "".join(lines)[-3000:]
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=60)
        reader.join(timeout=5)
        out = "".join(lines)
        assert rc == 128 + signal.SIGTERM, out[-3000:]
        assert "INTERRUPTED new_threads=[]" in out, out[-3000:]
        assert "NOT STOPPED" not in out
        assert read_scalars(str(model_dir / "eval"), "loss") == {}  # no partial metrics
    finally:
        kill_group(proc)


def test_a_stopped_rank_makes_the_other_fail_during_evaluation(monkeypatch, tmp_path):
    monkeypatch.setenv(TIMEOUT_ENV, "10")
    proc = pids = None
    try:
        proc = start_launcher(2, "stop_job.py", tmp_path / "model", "--distributed-optimizer",
                              "--evaluate")
        lines, reader = collect_output(proc)
        assert wait_for_lines(lines, ["EVALUATING rank=0", "EVALUATING rank=1"], 120), \
            "".join(lines)[-3000:]
        pids = pids_in("".join(lines))
        stopped_peer_fails_the_job(proc, lines, reader, rank_timeout=10)
    finally:
        if proc is not None:
            kill_group(proc)
        kill_pids(pids or [])


def test_a_group_collective_one_member_never_runs_fails_within_the_timeout(monkeypatch):
    monkeypatch.setenv(TIMEOUT_ENV, "5")
    proc = pids = None
    try:
        proc = start_launcher(2, "group_not_joined.py")
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 3, out[-3000:]
        assert "JOINED rank=1 total=[2.0, 2.0]" in out, out[-3000:]
        found = re.search(r"DEADLINE rank=0 after=([\d.]+) message=(.*)", out)
        assert found, out[-3000:]
        assert 4 < float(found.group(1)) < 5 + 20, out[-3000:]
        assert "longer than %s=5 s" % TIMEOUT_ENV in found.group(2), out[-3000:]
    finally:
        if proc is not None:
            kill_group(proc)
        kill_pids(pids or [])
