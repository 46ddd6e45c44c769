"""Weight-update sharding: per-rank optimizer memory and step time, sharded vs not.

Run by hand (not a test):  PYTHONPATH=. python bench/bench_sharding.py [--layers 8 --width 256]
An MLP trained with Adam (two slots per variable) as 1 rank, 2 ranks with the
full update on every rank, and 2 ranks with ``is_weight_update_sharding=True``.
Each rank reports the bytes of its optimizer state (the wrapped optimizer's
slot and non-slot variables that exist on that rank) and rank 0 the mean step
time after warm-up.  Both ranks share this machine's cores, so step times
include that contention.
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
        inner = tf.compat.v1.train.AdamOptimizer(1e-3)
        opt = NPUDistributedOptimizer(inner, is_weight_update_sharding=args.sharded)
        train = opt.minimize(loss, global_step=tf.compat.v1.train.get_or_create_global_step())
        state = tf.compat.v1.global_variables() + tf.compat.v1.local_variables()
        model = set(id(v) for v in tf.compat.v1.trainable_variables())
        opt_bytes = sum(v.shape.num_elements() * v.dtype.base_dtype.size for v in state
                        if id(v) not in model and "global_step" not in v.op.name)
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
    print("OPT_BYTES rank=%d %d" % (info.rank_id, opt_bytes), flush=True)
    if info.rank_id == 0:
        print("STEP_MS %.3f" % (1000.0 * elapsed / args.steps), flush=True)


def measure(nproc, sharded, args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="2")
    for name in ("RANK_SIZE", "RANK_ID", "NPU_BRIDGE_HOSTS", "TF_CONFIG"):
        env.pop(name, None)
    script = [os.path.abspath(__file__), "--worker"] + [
        "--%s=%s" % (k, getattr(args, k)) for k in ("layers", "width", "batch", "steps", "warmup")]
    if sharded:
        script.append("--sharded")
    if nproc == 1:
        cmd = [sys.executable] + script
    else:
        cmd = [sys.executable, "-m", "npu_bridge.launch", "-n", str(nproc)] + script
    out = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=900, start_new_session=True)
    step = re.findall(r"STEP_MS ([0-9.]+)", out.stdout)
    mem = [int(b) for b in re.findall(r"OPT_BYTES rank=\d+ (\d+)", out.stdout)]
    if out.returncode != 0 or not step or len(mem) != nproc:
        raise RuntimeError("run failed (%d ranks, sharded=%s):\n%s%s"
                           % (nproc, sharded, out.stdout[-3000:], out.stderr[-3000:]))
    return float(step[-1]), mem


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sharded", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    params = args.layers * (args.width * args.width + args.width)
    print("model: %d dense layers of %dx%d (%d parameters), Adam, batch %d per rank, "
          "%d timed steps" % (args.layers, args.width, args.width, params, args.batch,
                              args.steps))
    print("%-30s %10s %32s" % ("configuration", "step ms", "optimizer state per rank (KiB)"))
    for name, nproc, sharded in (("1 rank", 1, False), ("2 ranks, full update", 2, False),
                                 ("2 ranks, sharded update", 2, True)):
        ms, mem = measure(nproc, sharded, args)
        print("%-30s %10.3f %32s" % (name, ms, " / ".join("%.1f" % (b / 1024.0) for b in mem)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
