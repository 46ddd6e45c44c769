"""Who can reach a rank: a job on one machine gets a network of its own.

Each rank runs a TensorFlow gRPC server (``runtime.ensure_server``). In
TensorFlow 2.15 that server listens on ``0.0.0.0:port`` whatever address the
cluster names (it has no bind-address option) and has no authentication:
whoever reaches the port can run any graph in the rank's process, reading
and writing files as the training user. A job that ``npu-bridge-launch``
starts on one machine needs none of that exposure, so before it starts the
ranks the launcher moves itself into a new Linux network namespace
(``unshare(CLONE_NEWNET)``; as a user other than root together with a new
user namespace that maps only that user, so no privilege is gained) and
brings its loopback interface up. The ranks inherit it: they reach each
other on 127.0.0.1 inside it, and nothing outside it can connect to their
ports, from this machine or any other.

The cost: inside, there is no other interface, so a rank cannot open
connections to other machines either (a script that downloads its data,
or a model_dir on a network store reached over TCP, fails there). GPUs,
files, shared memory and the output pipes are not affected. ``--network
host`` on the launcher keeps the machine's network instead.

Where namespaces are not available (not Linux, a container whose seccomp
profile forbids ``unshare``, user namespaces disabled) ``enter()`` leaves the
process where it was and says why; the launcher then warns once. Whether it
works is first tried in a forked child, so a half-made namespace (created
but without a working loopback) never becomes the launcher's.

For jobs across machines nothing here applies: each rank logs the port it
listens on (``log_listening``) and docs/distributed.md says how to confine it.
"""

import ctypes
import ctypes.util
import fcntl
import logging
import os
import socket
import struct
import sys

ENV = "NPU_BRIDGE_PRIVATE_NETWORK"  # "1" in ranks the launcher started in its own namespace

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sh22x"  # struct ifreq: name, flags, padding to 40 bytes

_log = logging.getLogger(__name__)


def _unshare(flags):
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.unshare(flags) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _loopback_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack(_IFREQ, fcntl.ioctl(sock, _SIOCGIFFLAGS,
                                                  struct.pack(_IFREQ, b"lo", 0)))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def _with_user_namespace():
    """A new user namespace mapping only our own uid/gid, with a new network namespace."""
    uid, gid = os.getuid(), os.getgid()
    _unshare(CLONE_NEWUSER | CLONE_NEWNET)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", "%d %d 1" % (uid, uid))
    _write("/proc/self/gid_map", "%d %d 1" % (gid, gid))


def _make_namespace():
    """Moves the calling process into a new network namespace with ``lo`` up (raises OSError)."""
    if os.geteuid() != 0:
        _with_user_namespace()
    else:
        try:
            _unshare(CLONE_NEWNET)
        except OSError:  # root without CAP_SYS_ADMIN (a container): as any user
            _with_user_namespace()
    _loopback_up()


def _try_in_child():
    """None if ``_make_namespace`` works in a forked child, else why it failed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: try, report, leave without running any Python cleanup
        os.close(read)
        try:
            _make_namespace()
            os._exit(0)  # pylint: disable=protected-access
        except BaseException as error:  # pylint: disable=broad-except
            os.write(write, str(error).encode("utf-8", "replace")[:500])
            os._exit(1)  # pylint: disable=protected-access
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        reason = pipe.read().decode("utf-8", "replace")
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        return None
    return reason or "the trial process ended with status %d" % status


def enter():
    """Moves this process into a private network namespace; None on success, else the reason.

    Call it in a process of its own (the launcher's ``main``), before any
    socket is opened and before the ranks are started: it cannot be undone.
    """
    if not sys.platform.startswith("linux"):
        return "network namespaces exist only on Linux (this is %s)" % sys.platform
    reason = _try_in_child()
    if reason is not None:
        return reason
    try:
        _make_namespace()
    except OSError as error:
        return str(error)
    return None


def in_private_network(env=None):
    """True in a rank the launcher started inside its private network."""
    return (os.environ if env is None else env).get(ENV) == "1"


def log_listening(rank_id, address):
    """Logs once, at server start, where this rank can be reached and by whom."""
    port = address.rsplit(":", 1)[1]
    if in_private_network():
        _log.warning("npu_bridge: rank %d listens on port %s inside the launcher's private "
                     "network: only this job's ranks can connect", rank_id, port)
        return
    _log.warning(
        "npu_bridge: rank %d listens on 0.0.0.0:%s (every interface of this host; peers "
        "use %s). TensorFlow's server has no authentication: whoever reaches this port "
        "can run code as this user. Keep the ranks' ports on a private network or behind "
        "a firewall (docs/distributed.md, 'Who can reach a rank').", rank_id, port, address)
