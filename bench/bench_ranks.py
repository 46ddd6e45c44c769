"""Step time of data-parallel training: 1 rank vs 2 ranks, fused vs unfused all-reduce.

Run by hand (not a test):  PYTHONPATH=. python bench/bench_ranks.py [--layers 40 --width 64]
The model is a deep MLP with many small variables, the case gradient fusion
is for: unfused, every variable costs one collective per step.  Each
configuration runs in fresh processes; rank 0 reports the mean step time over
the timed steps (after warm-up).  Both ranks share the machine's cores, so
2-rank numbers include that contention: the useful reading is fused vs
unfused, and the collective overhead over 1 rank.
"""

import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worker(args):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    from npu_bridge.distributed import collectives, runtime
    from npu_bridge.distributed.broadcast_hook import npu_hooks_append
    from npu_bridge.distributed.optimizer import NPUDistributedOptimizer

    tf.compat.v1.disable_eager_execution()
    info = runtime.rank_info()
    with tf.compat.v1.Graph().as_default():
        x = tf.random.normal([args.batch, args.width], seed=info.rank_id)
        h = x
        for i in range(args.layers):
            h = tf.compat.v1.layers.dense(h, args.width, activation=tf.nn.relu, name="l%d" % i)
        loss = tf.reduce_mean(tf.square(h))
        opt = NPUDistributedOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.01))
        train = opt.minimize(loss, global_step=tf.compat.v1.train.get_or_create_global_step())
        with tf.compat.v1.train.MonitoredTrainingSession(
                master=runtime.ensure_server() or "", is_chief=True,
                hooks=npu_hooks_append([]), config=runtime.session_config_for_rank(),
                save_summaries_steps=None, save_summaries_secs=None,
                log_step_count_steps=None) as sess:
            for _ in range(args.warmup):
                sess.run(train)
            start = time.perf_counter()
            for _ in range(args.steps):
                sess.run(train)
            elapsed = time.perf_counter() - start
        collectives.barrier()
    if info.rank_id == 0:
        print("STEP_MS %.3f" % (1000.0 * elapsed / args.steps), flush=True)


def measure(nproc, fused, args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NPU_BRIDGE_GRAD_FUSION="1" if fused else "0", TF_CPP_MIN_LOG_LEVEL="2")
    for name in ("RANK_SIZE", "RANK_ID", "NPU_BRIDGE_HOSTS", "TF_CONFIG"):
        env.pop(name, None)
    script = [os.path.abspath(__file__), "--worker"] + [
        "--%s=%s" % (k, getattr(args, k)) for k in ("layers", "width", "batch", "steps", "warmup")]
    if nproc == 1:
        cmd = [sys.executable] + script
    else:
        cmd = [sys.executable, "-m", "npu_bridge.launch", "-n", str(nproc)] + script
    out = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=600, start_new_session=True)
    found = re.findall(r"STEP_MS ([0-9.]+)", out.stdout)
    if out.returncode != 0 or not found:
        raise RuntimeError("run failed (%d ranks, fused=%s):\n%s%s"
                           % (nproc, fused, out.stdout[-3000:], out.stderr[-3000:]))
    return float(found[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--layers", type=int, default=40)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    print("model: %d dense layers of %dx%d (%d variables), batch %d per rank, %d timed steps"
          % (args.layers, args.width, args.width, 2 * args.layers, args.batch, args.steps))
    one = measure(1, True, args)
    fused = measure(2, True, args)
    unfused = measure(2, False, args)
    print("%-28s %10s %12s" % ("configuration", "step ms", "vs 1 rank"))
    for name, ms in (("1 rank", one), ("2 ranks, fused all-reduce", fused),
                     ("2 ranks, unfused (per var)", unfused)):
        print("%-28s %10.3f %11.2fx" % (name, ms, ms / one))
    print("fused speed-up over unfused: %.2fx" % (unfused / fused))
    return 0


if __name__ == "__main__":
    sys.exit(main())
