"""Who can reach a rank: nobody outside a job that npu-bridge-launch started on one machine.

TensorFlow's server listens on every interface and runs any graph sent to it,
so the launcher puts its ranks in a network namespace of their own. From this
test process (outside it) a rank's port must refuse connections, on 127.0.0.1
and on the machine's own address, while the ranks reach each other, train and
end with equal variables.
"""
import json
import os
import re
import socket
import subprocess
import sys

import pytest

from distributed_util import (collect_output, env, kill_group, kill_pids, pids_in,
                              start_launcher, wait_for_lines)
from npu_bridge.distributed.cluster import private_network

pytestmark = pytest.mark.timeout(180)

CLONE_NEWNET = private_network.CLONE_NEWNET

# Run inside the rank's namespace (as root): joins it, then connects to the port.
_CONNECT_INSIDE = """
import ctypes, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
with open("/proc/%d/ns/net" % int(sys.argv[1])) as ns:
    assert libc.setns(ns.fileno(), {flag}) == 0, ctypes.get_errno()
socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5).close()
print("CONNECTED")
""".format(flag=CLONE_NEWNET)


def _this_machines_address():
    """The address other machines would use for this one (None without a route)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent by a UDP connect
        address = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def _refused(host, port):
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError:
        return True
    return False


def test_a_single_host_job_refuses_connections_from_outside(tmp_path):
    proc = pids = None
    try:
        proc = start_launcher(2, "stop_job.py", tmp_path / "model", "--distributed-optimizer",
                              "--steps", "400")
        lines, reader = collect_output(proc)
        assert wait_for_lines(lines, ["TRAINING rank=0", "TRAINING rank=1"], 120), \
            "".join(lines)[-3000:]
        out = "".join(lines)
        if "could not give the ranks a private network" in out:
            pytest.skip("network namespaces unavailable here: %s" % out[-1000:])
        pids = pids_in(out)
        ports = [int(p) for p in re.findall(
            r"listens on port (\d+) inside the launcher's private network", out)]
        assert len(ports) == 2, out[-3000:]
        outside = ["127.0.0.1"] + [a for a in [_this_machines_address()] if a]
        for port in ports:
            for host in outside:
                assert _refused(host, port), (host, port)
        if os.geteuid() == 0:  # the same ports do answer inside the job's namespace
            for pid, port in zip(pids, ports):
                inside = subprocess.run([sys.executable, "-c", _CONNECT_INSIDE, str(pid),
                                         str(port)], capture_output=True, text=True, timeout=30)
                assert "CONNECTED" in inside.stdout, inside.stderr
        assert proc.wait(timeout=120) == 0, "".join(lines)[-3000:]
        reader.join(timeout=5)
        ends = re.findall(r"VARS rank=(\d) step=(\d+) digest=(\w+)", "".join(lines))
        assert sorted(ends) == [("0", "400", ends[0][2]), ("1", "400", ends[0][2])], ends
    finally:
        if proc is not None:
            kill_group(proc)
        kill_pids(pids or [])


_INSIDE_A_NEW_NAMESPACE = """
import json, socket
from npu_bridge.distributed.cluster import private_network
reason = private_network.enter()
names, works = [], False
if reason is None:
    names = sorted(name for _, name in socket.if_nameindex())
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    socket.create_connection(server.getsockname(), timeout=5).close()
    works = True
print(json.dumps([reason, names, works]))
"""


def test_the_namespace_has_only_a_working_loopback():
    result = subprocess.run([sys.executable, "-c", _INSIDE_A_NEW_NAMESPACE], env=env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    reason, names, works = json.loads(result.stdout)
    if reason is not None:
        pytest.skip("network namespaces unavailable here: %s" % reason)
    assert names == ["lo"] and works
