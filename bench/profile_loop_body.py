"""What one step of NPUEstimator's loop executes, against the bare while_v2 loop.

Run by hand (not a test), from the repository root:

    python bench/profile_loop_body.py --model tiny
    python bench/profile_loop_body.py --model mlp --runs 3
    python bench/profile_loop_body.py --host-call   # with host_call, and the host's side

Both programs are the ones ``bench_loop.py`` times (NPUEstimator N=100 and the
bare ``Session`` + ``while_v2(100)`` loop, no host_call). A few 100-step runs
of each are traced with ``RunOptions(trace_level=FULL_TRACE)``; TensorFlow's
step stats list every node the executor ran. Printed: executor nodes per step
and op time per step of each, then the nodes whose count or time differs most.
Time per op is noisy on a shared machine; node counts are exact, and on a
model whose step is short each node costs about the same (scheduling it).

``--host-call``: both programs with bench_loop's host_call (two scalars per
step; the bare loop writes them with summary ops in its body), and the host
side of NPUEstimator's outfeed: executor nodes per record of a few traced
host runs (the host thread's ``Session.run`` is wrapped here to trace them).
"""

import argparse
import collections
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import config_pb2  # noqa: E402

import bench_loop  # noqa: E402
from npu_bridge.device_loop import outfeed  # noqa: E402

STEPS = bench_loop.BARE_LOOP
TRACE = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)


def _node_stats(run_metadata):
    """(count, microseconds) per node name's last component, over all devices."""
    counts, micros = collections.Counter(), collections.Counter()
    for device in run_metadata.step_stats.dev_stats:
        for node in device.node_stats:
            key = node.node_name.rsplit("/", 1)[-1]
            counts[key] += 1
            micros[key] += node.op_end_rel_micros
    return counts, micros


class _TraceRuns(tf.compat.v1.train.SessionRunHook):
    """Traces runs first..first+count-1 of an Estimator's train()."""

    def __init__(self, first, count):
        self._first, self._count, self._run = first, count, 0
        self.traced = []

    def _tracing(self):
        return self._first <= self._run < self._first + self._count

    def before_run(self, run_context):
        self._run += 1
        if self._tracing():
            return tf.compat.v1.train.SessionRunArgs(None, options=TRACE)
        return None

    def after_run(self, run_context, run_values):
        if self._tracing():
            self.traced.append(_node_stats(run_values.run_metadata))


class _TraceHostRuns(object):
    """Wraps HostCallHook's host runs: traces ``count`` of the thread's runs, starting
    ``skip`` runs after ``ready()`` turns true (one traced run at a time per process:
    the device runs are traced first)."""

    def __init__(self, ready, count, skip=10):
        self._ready, self._count, self._skip = ready, count, skip
        self._first, self._run = None, 0
        self.traced = []  # (records taken, node counts)

    def __enter__(self):
        self._drain = outfeed.HostCallHook._drain
        tracer = self

        def drain(hook, session):
            run = session.run

            def traced_run(fetches, *args, **kwargs):
                if fetches is not hook._outfeed.host_run:  # pylint: disable=protected-access
                    return run(fetches, *args, **kwargs)
                tracer._run += 1
                if tracer._first is None and tracer._ready():
                    tracer._first = tracer._run + tracer._skip
                if (tracer._first is None
                        or not tracer._first <= tracer._run < tracer._first + tracer._count):
                    return run(fetches, *args, **kwargs)
                metadata = config_pb2.RunMetadata()
                taken = run(fetches, options=TRACE, run_metadata=metadata)
                tracer.traced.append((int(taken), _node_stats(metadata)[0]))
                return taken
            session.run = traced_run
            return tracer._drain(hook, session)
        outfeed.HostCallHook._drain = drain
        return self

    def __exit__(self, *unused):
        outfeed.HostCallHook._drain = self._drain


def npu_runs(model, runs, host_call=False):
    hook = _TraceRuns(first=3, count=runs)
    workdir = tempfile.mkdtemp(prefix="profile_loop_")
    logdir = os.path.join(workdir, "host_call") if host_call else None
    estimator = bench_loop.estimator_for("npu100", model, os.path.join(workdir, "m"), logdir)
    with _TraceHostRuns(lambda: len(hook.traced) >= runs, count=runs) as host:
        estimator.train(bench_loop.input_fn_for(model), hooks=[hook], steps=STEPS * (runs + 30))
    return hook.traced, host.traced


def bare_runs(model, runs, host_call=False):
    traced = []
    with tf.Graph().as_default():
        loop, init, _, _ = bench_loop.build_bare_loop(
            model, tempfile.mkdtemp(prefix="profile_") if host_call else None)
        config = bench_loop.run_config_lib.RunConfig().session_config
        with tf.compat.v1.Session(config=config) as sess:
            sess.run(init)
            sess.run(loop)
            sess.run(loop)
            for _ in range(runs):
                metadata = config_pb2.RunMetadata()
                sess.run(loop, options=TRACE, run_metadata=metadata)
                traced.append(_node_stats(metadata))
    return traced


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny", choices=sorted(bench_loop.MODELS))
    parser.add_argument("--runs", type=int, default=3, help="traced 100-step runs of each")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--host-call", action="store_true",
                        help="with bench_loop's host_call; also trace the host's runs")
    args = parser.parse_args(argv)
    tf.get_logger().setLevel("ERROR")
    model = bench_loop.MODELS[args.model]
    (npu, host), bare = (npu_runs(model, args.runs, args.host_call),
                         bare_runs(model, args.runs, args.host_call))
    for taken, counts in host:
        print("host run: %d records, executor nodes per record %.1f"
              % (taken, sum(counts.values()) / float(taken)))
    for name, traced in (("NPUEstimator N=100", npu), ("bare while_v2(100)", bare)):
        nodes = [sum(c.values()) / float(STEPS) for c, _ in traced]
        micros = [sum(t.values()) / float(STEPS) for _, t in traced]
        print("%-20s executor nodes per step %s, op us per step %s" % (
            name, " ".join("%.1f" % n for n in nodes), " ".join("%.0f" % m for m in micros)))
    (npu_counts, npu_micros), (bare_counts, bare_micros) = npu[-1], bare[-1]
    keys = sorted(set(npu_counts) | set(bare_counts),
                  key=lambda k: -(abs(npu_counts[k] - bare_counts[k]) * 1000
                                  + npu_micros[k] - bare_micros[k]))
    print("\n%-48s %7s %7s %9s %9s" % ("node (last run)", "n npu", "n bare", "us npu", "us bare"))
    for key in keys[:args.top]:
        print("%-48s %7d %7d %9d %9d" % (key, npu_counts[key], bare_counts[key],
                                          npu_micros[key], bare_micros[key]))


if __name__ == "__main__":
    main()
