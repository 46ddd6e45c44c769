"""Start N ranks of a script on this machine: ``python -m npu_bridge.launch -n 2 train.py args``.

Each rank is a child process in its own process group, with ``RANK_SIZE``,
``RANK_ID``, ``DEVICE_ID`` and ``NPU_BRIDGE_HOSTS`` (free ports on the chosen
host) set.  Output lines are prefixed ``[rank N]``.  As soon as one rank fails
the launcher stops all the others (SIGTERM, then SIGKILL after a grace period)
and exits non-zero, rather than leave them waiting for their peer until
``NPU_BRIDGE_RANK_TIMEOUT``.

SIGINT / SIGTERM to the launcher are passed on to every rank, which then
stop together after their current loop with a checkpoint (see
``npu_bridge.core.graceful_stop``); the launcher waits up to
``--signal-grace`` seconds for that (default 25: schedulers such as Kubernetes
and Slurm send SIGKILL 30 s after SIGTERM), saying every few seconds which
ranks it still waits for, and exits 128 + signal. A second signal kills every
rank at once. If the launcher itself is killed, its ranks die with it
(``distributed.cluster.parent_watch``).

On one machine the ranks run in a private network namespace by default, so
their unauthenticated TensorFlow servers can be reached only by each other
(``distributed.cluster.private_network``; ``--network host`` keeps the machine's
network, e.g. for a script that downloads its data).

``--gpus G``: rank r sees only GPU ``r % G`` (``CUDA_VISIBLE_DEVICES``).

``--tf1`` runs each rank in the TF1 mode (``npu-bridge-run``, see npu_bridge.tf1).
"""

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from npu_bridge.distributed.cluster import parent_watch, private_network
from npu_bridge.distributed.cluster.devices import launcher_gpu_env
from npu_bridge.distributed.cluster.runtime import HOSTS_ENV

GRACE_SECONDS = 5.0
# A graceful stop writes a checkpoint and drains records; schedulers allow 30 s
# between SIGTERM and SIGKILL (Kubernetes' default, Slurm's KillWait), so the
# launcher gives up a little before and ends the ranks itself.
SIGNAL_GRACE_SECONDS = 25.0
WAITING_REPORT_SECONDS = 5.0  # how often a stopping launcher says whom it waits for
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


def free_ports(count, host="127.0.0.1"):
    """``count`` distinct ports that were free on ``host`` a moment ago."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            socks.append(sock)
        return [s.getsockname()[1] for s in socks]
    finally:
        for sock in socks:
            sock.close()


def rank_env(base, rank, hosts, gpus=None, private=False):
    """Environment of one rank; TF_CONFIG is dropped so it cannot disagree.

    ``gpus``: GPUs of this host to spread the ranks over (``--gpus``); each
    rank then sees only its own in CUDA_VISIBLE_DEVICES. ``private``: the
    ranks run in the launcher's private network (they log it).
    """
    env = dict(base)
    env.pop("TF_CONFIG", None)
    env.pop(private_network.ENV, None)
    env.update({"RANK_SIZE": str(len(hosts)), "RANK_ID": str(rank),
                "DEVICE_ID": str(rank), HOSTS_ENV: ",".join(hosts),
                "PYTHONUNBUFFERED": "1"})
    if private:
        env[private_network.ENV] = "1"
    if gpus:
        env["CUDA_VISIBLE_DEVICES"] = launcher_gpu_env(base, rank, gpus)
    return env


def _pump(rank, stream, out, lock):
    prefix = "[rank %d] " % rank
    for line in iter(stream.readline, ""):
        with lock:
            out.write(prefix + line if line.endswith("\n") else prefix + line + "\n")
            out.flush()
    stream.close()


def _signal_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all(procs, grace=GRACE_SECONDS):
    """SIGTERM every rank's process group, SIGKILL what is left after ``grace``."""
    for proc in procs:
        _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for proc in procs:
        _signal_group(proc, signal.SIGKILL)  # also reaps leftover children
        proc.wait()


def _exit_code(returncode):
    return 128 - returncode if returncode < 0 else returncode


def _wait_after_signal(procs, stopping, grace, say):
    """Wait for ranks stopping on a forwarded signal; give up on a second signal or timeout.

    Says every few seconds which ranks it still waits for, and what happens next.
    """
    start = time.monotonic()
    next_report = start + WAITING_REPORT_SECONDS
    while time.monotonic() < start + grace and stopping["count"] < 2:
        running = [(rank, p.pid) for rank, p in enumerate(procs) if p.poll() is None]
        if not running:
            return True
        if time.monotonic() >= next_report:
            say("launcher: waiting for %s to stop (%.0f s of --signal-grace %g s; then "
                "they are killed)" % (", ".join("rank %d (pid %d)" % r for r in running),
                                      time.monotonic() - start, grace))
            next_report += WAITING_REPORT_SECONDS
        time.sleep(0.05)
    running = [rank for rank, p in enumerate(procs) if p.poll() is None]
    if running and stopping["count"] < 2:
        say("launcher: rank(s) %s did not stop within --signal-grace %g s: killing them"
            % (", ".join(map(str, running)), grace))
    return not running


def run(command, nproc, host="127.0.0.1", out=None, grace=GRACE_SECONDS,
        signal_grace=SIGNAL_GRACE_SECONDS, gpus=None, private=False):
    """Runs ``command`` (argv list) as ``nproc`` ranks; returns the exit code.

    Each rank dies with this process (``parent_watch``). ``private``: this
    process is already in its own network namespace (``main`` puts it there);
    ``run`` itself never changes the caller's network.
    """
    if isinstance(nproc, bool) or not isinstance(nproc, int) or nproc < 1:
        raise ValueError("-n/--nproc must be an int >= 1, got %r" % (nproc,))
    for name, value in (("--grace", grace), ("--signal-grace", signal_grace)):
        if not (isinstance(value, (int, float)) and 0 <= value < float("inf")):
            raise ValueError("%s must be a finite number of seconds >= 0, got %r"
                             % (name, value))
    out = out or sys.stdout
    hosts = ["%s:%d" % (host, port) for port in free_ports(nproc, host)]
    lock = threading.Lock()
    procs, pumps = [], []
    stopping = {"signal": None, "count": 0}

    def on_signal(signum, _frame):
        stopping["count"] += 1
        if stopping["signal"] is None:
            stopping["signal"] = signum

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for rank in range(nproc):
            proc = subprocess.Popen(
                parent_watch.wrap(command), env=rank_env(os.environ, rank, hosts, gpus, private),
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                start_new_session=True)
            procs.append(proc)
            pump = threading.Thread(target=_pump, args=(rank, proc.stdout, out, lock),
                                    daemon=True)
            pump.start()
            pumps.append(pump)
        code = 0
        while True:
            if stopping["signal"] is not None:
                code = 128 + stopping["signal"]
                _say(out, lock, "launcher: got signal %d, passing it to every rank (send "
                     "it again to kill them at once)" % stopping["signal"])
                for proc in procs:
                    _signal_group(proc, stopping["signal"])
                if not _wait_after_signal(procs, stopping, signal_grace,
                                          lambda text: _say(out, lock, text)):
                    grace = 0.0  # second signal or ranks not done: kill them now
                break
            failed = [(r, p.returncode) for r, p in enumerate(procs)
                      if p.poll() is not None and p.returncode != 0]
            if failed:
                rank, rc = failed[0]
                code = _exit_code(rc)
                _say(out, lock, "launcher: rank %d exited with %d, stopping the others%s"
                     % (rank, rc, _PRIVATE_HINT if private and rc > 0 else ""))
                break
            if all(p.returncode is not None for p in procs):
                break
            time.sleep(0.05)
        return code
    finally:
        stop_all(procs, grace)
        for pump in pumps:
            pump.join(timeout=2.0)
        for sig, handler in old.items():
            signal.signal(sig, handler)


_PRIVATE_HINT = (" (the ranks ran in a private network with no access to other machines: "
                 "if the script downloads data or reaches a network store, use --network host)")


def _say(out, lock, text):
    with lock:
        out.write(text + "\n")
        out.flush()


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="npu-bridge-launch",
        description="Run a script as N data-parallel ranks on this machine.")
    parser.add_argument("-n", "--nproc", type=int, required=True, help="number of ranks")
    parser.add_argument("--host", default="127.0.0.1", help="address the ranks listen on")
    parser.add_argument("--grace", type=float, default=GRACE_SECONDS,
                        help="seconds between SIGTERM and SIGKILL when stopping ranks")
    parser.add_argument("--gpus", type=int, default=None,
                        help="GPUs on this host: rank r sees only GPU r %% GPUS "
                             "(CUDA_VISIBLE_DEVICES); default: leave it alone")
    parser.add_argument("--signal-grace", type=float, default=SIGNAL_GRACE_SECONDS,
                        help="seconds ranks get to stop cleanly after a forwarded "
                             "SIGINT/SIGTERM before they are killed")
    parser.add_argument("--network", choices=("private", "host"), default=None,
                        help="private (the default with a loopback --host): the ranks get a "
                             "network namespace of their own, so nothing outside the job can "
                             "reach their servers, and they cannot reach other machines; "
                             "host: they use this machine's network")
    parser.add_argument("--tf1", action="store_true",
                        help="run the script in the TF1 mode (as npu-bridge-run does)")
    parser.add_argument("script", help="python script to run (or -m module)")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.script == "-m":
        command = [sys.executable, "-m"] + args.args
    else:
        command = [sys.executable, args.script] + args.args
    if args.tf1:
        command[1:1] = ["-m", "npu_bridge.run"]
    private = _enter_private_network(args.network, args.host)
    return run(command, args.nproc, args.host, grace=args.grace,
               signal_grace=args.signal_grace, gpus=args.gpus, private=private)


def _enter_private_network(network, host):
    """Moves the launcher into a network of its own unless told not to; True if it did."""
    loopback = host in LOOPBACK_HOSTS
    if network is None:
        network = "private" if loopback else "host"
    if network == "host":
        return False
    if not loopback:
        raise SystemExit("npu-bridge-launch: --network private needs a loopback --host "
                         "(127.0.0.1 or localhost); got --host %s" % host)
    reason = private_network.enter()
    if reason is not None:
        sys.stderr.write(
            "launcher: WARNING: could not give the ranks a private network (%s). Their "
            "TensorFlow servers listen on every interface of this machine, without "
            "authentication: see docs/distributed.md, 'Who can reach a rank'.\n" % reason)
        return False
    sys.stdout.write("launcher: the ranks run in a private network: only they can reach "
                     "their servers, and they cannot reach other machines (--network host "
                     "to use this machine's network)\n")
    sys.stdout.flush()
    return True


if __name__ == "__main__":
    sys.exit(main())
