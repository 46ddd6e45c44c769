"""A rank never waits for its peers longer than NPU_BRIDGE_RANK_TIMEOUT, and says for whom."""

import os
import subprocess
import sys
import time

import pytest

from distributed_util import (RANKS, collect_output, env, kill_group, pids_in,
                              stopped_peer_fails_the_job)
from npu_bridge.distributed.cluster.rank_timeout import TIMEOUT_ENV, rank_timeout_seconds
from npu_bridge.launch import free_ports

pytestmark = pytest.mark.timeout(120)


def test_timeout_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    assert rank_timeout_seconds() == 300
    monkeypatch.setenv(TIMEOUT_ENV, "7.5")
    assert rank_timeout_seconds() == 7.5
    for bad in ("0", "nan", "soon"):
        monkeypatch.setenv(TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=TIMEOUT_ENV):
            rank_timeout_seconds()


def test_one_process_of_two_fails_in_bounded_time_naming_the_missing_peer(tmp_path):
    hosts = ["127.0.0.1:%d" % port for port in free_ports(2)]
    rank_env = env()
    rank_env.update({"RANK_SIZE": "2", "RANK_ID": "0", "NPU_BRIDGE_HOSTS": ",".join(hosts),
                     TIMEOUT_ENV: "5"})
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, os.path.join(RANKS, "train_estimator.py"), str(tmp_path / "out"),
         str(tmp_path / "model")], env=rank_env, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=90)
    finally:
        kill_group(proc)
    elapsed = time.monotonic() - start
    assert proc.returncode != 0, out[-3000:]
    assert "could not reach rank(s) [1] at %s within 5 s" % hosts[1] in out, out[-3000:]
    assert elapsed < 60


def test_a_stopped_rank_makes_the_others_fail_within_the_timeout(monkeypatch, tmp_path):
    monkeypatch.setenv(TIMEOUT_ENV, "8")
    trainer = os.path.join(os.path.dirname(RANKS), "trainers", "slow_host_train.py")
    host_dir = tmp_path / "model" / "host"
    proc = subprocess.Popen(
        [sys.executable, "-m", "npu_bridge.launch", "-n", "2", trainer, str(tmp_path / "model"),
         str(10 ** 6), "10", "0", str(10 ** 5)], env=env(), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines, reader = collect_output(proc)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
                host_dir.exists() and len(pids_in("".join(lines))) == 2
                and any(p.stat().st_size > 2000 for p in host_dir.iterdir())):
            time.sleep(0.1)
        stopped_peer_fails_the_job(proc, lines, reader, rank_timeout=8)
    finally:
        kill_group(proc)
