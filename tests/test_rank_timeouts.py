"""A rank never waits for its peers longer than NPU_BRIDGE_RANK_TIMEOUT, and says for whom."""

import os
import signal
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


def _rank_env(hosts, rank, timeout):
    rank_env = env()
    rank_env.update({"RANK_SIZE": str(len(hosts)), "RANK_ID": str(rank),
                     "NPU_BRIDGE_HOSTS": ",".join(hosts), TIMEOUT_ENV: str(timeout)})
    return rank_env


_WAIT_IN_GIVE_UP = """
import sys, time
from npu_bridge.distributed.cluster import peer_give_up
with peer_give_up.exit_after(float(sys.argv[1]), "the test's wait"):
    time.sleep(float(sys.argv[2]))
print("STILL RUNNING", flush=True)
"""


@pytest.mark.parametrize("bound,wait,ends", [(1, 60, True), (30, 0.1, False)])
def test_exit_after_ends_a_rank_that_waited_too_long_and_only_that(bound, wait, ends):
    hosts = ["127.0.0.1:%d" % port for port in free_ports(2)]
    proc = subprocess.run([sys.executable, "-c", _WAIT_IN_GIVE_UP, str(bound), str(wait)],
                          env=_rank_env(hosts, 0, 7), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=50)
    if ends:
        assert proc.returncode == 1, proc.stdout[-3000:]
        assert ("rank 0: the test's wait has waited 1 s for its peers (%s=7); a peer is dead "
                "or hung (rank 1 at %s)" % (TIMEOUT_ENV, hosts[1])) in proc.stdout
        assert "STILL RUNNING" not in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert "STILL RUNNING" in proc.stdout and "dead or hung" not in proc.stdout


_STOPPABLE_LEADER = """
import time
from npu_bridge.distributed.cluster import runtime
runtime.ensure_server()
print("SERVING", flush=True)
time.sleep(600)
"""

_GATHERING_PEER = """
import os, sys, time
from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives
runtime.ensure_server()
print("SERVING", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.1)
print("GATHERED", collectives.gather_from_ranks([1], "the test's gather"), flush=True)
"""


def test_an_off_graph_collective_with_a_stopped_leader_ends_the_rank_naming_it(tmp_path):
    """Rank 0 (the collective group's leader) serves, then is stopped; rank 1's gather
    must end, by TensorFlow's deadline or by giving up, not hang."""
    timeout = 4
    go = tmp_path / "go"
    hosts = ["127.0.0.1:%d" % port for port in free_ports(2)]
    leader = subprocess.Popen([sys.executable, "-c", _STOPPABLE_LEADER],
                              env=_rank_env(hosts, 0, timeout), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    peer = subprocess.Popen([sys.executable, "-c", _GATHERING_PEER, str(go)],
                            env=_rank_env(hosts, 1, timeout), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        leader_lines, _ = collect_output(leader)
        peer_lines, peer_reader = collect_output(peer)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
                "SERVING\n" in leader_lines and "SERVING\n" in peer_lines):
            time.sleep(0.2)
        assert "SERVING\n" in leader_lines, "".join(leader_lines)[-3000:]
        assert "SERVING\n" in peer_lines, "".join(peer_lines)[-3000:]
        os.kill(leader.pid, signal.SIGSTOP)
        started = time.monotonic()
        go.write_text("go")
        peer.wait(timeout=timeout + 60)
        peer_reader.join(timeout=5)
        out = "".join(peer_lines)
        assert peer.returncode != 0, out[-3000:]
        assert "GATHERED" not in out
        # either TensorFlow's deadline (its error names the op) or the give-up message
        assert ("the test's gather has waited" in out and "rank 0 at %s" % hosts[0] in out) \
            or "DeadlineExceeded" in out, out[-3000:]
        assert time.monotonic() - started < timeout + 55
    finally:
        for proc in (leader, peer):
            if proc is not None:
                kill_group(proc)
