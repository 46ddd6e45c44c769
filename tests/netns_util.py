"""A private network of Linux network namespaces for rank tests: one namespace per rank.

Layout: a "switch" namespace holding a bridge, and per rank a namespace whose
``eth0`` is one end of a veth pair whose other end sits on that bridge; the
ranks get 10.211.0.1, 10.211.0.2, ...  No interface is ever created in the
caller's namespace and no namespace has a route anywhere else, so all traffic
stays inside.  ``private_network`` removes every namespace (and kills every
process still in one, by PID) on exit, also after a failure.
"""
import contextlib
import os
import shutil
import signal
import subprocess

SUBNET = "10.211.0"


def _ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), check=check, capture_output=True, text=True,
                          timeout=20)


def unavailable_reason():
    """None when namespaces can be made here, else why not (for pytest.skip)."""
    if shutil.which("ip") is None:
        return "the ip tool (iproute2) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root (running as uid %d)" % os.geteuid()
    probe = "nb_probe_%d" % os.getpid()
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return "ip netns add is not permitted here: %s" % made.stderr.strip()
    _ip("netns", "del", probe, check=False)
    return None


def rx_bytes(namespace, device="eth0"):
    out = _ip("-n", namespace, "-s", "-j", "link", "show", device).stdout
    import json
    return json.loads(out)[0]["stats64"]["rx"]["bytes"]


def _remove(namespace):
    pids = _ip("netns", "pids", namespace, check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    _ip("netns", "del", namespace, check=False)


@contextlib.contextmanager
def private_network(count):
    """Yields [(namespace, address)] for ``count`` ranks; removes everything on exit."""
    tag = "nb%d" % os.getpid()
    switch = tag + "sw"
    ranks = [("%sr%d" % (tag, i), "%s.%d" % (SUBNET, i + 1)) for i in range(count)]
    made = []
    try:
        for namespace in [switch] + [ns for ns, _ in ranks]:
            _ip("netns", "add", namespace)
            made.append(namespace)
            _ip("-n", namespace, "link", "set", "lo", "up")
        _ip("-n", switch, "link", "add", "br0", "type", "bridge")
        _ip("-n", switch, "link", "set", "br0", "up")
        for i, (namespace, address) in enumerate(ranks):
            port = "p%d" % i
            _ip("-n", switch, "link", "add", port, "type", "veth", "peer", "name", "eth0",
                "netns", namespace)
            _ip("-n", switch, "link", "set", port, "master", "br0")
            _ip("-n", switch, "link", "set", port, "up")
            _ip("-n", namespace, "addr", "add", address + "/24", "dev", "eth0")
            _ip("-n", namespace, "link", "set", "eth0", "up")
        yield ranks
    finally:
        for namespace in reversed(made):
            _remove(namespace)
        left = set(_ip("netns", "list", check=False).stdout.split())
        assert not left & set(made), "namespaces left behind: %s" % (left & set(made))
