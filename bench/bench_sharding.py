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
import re
import sys

from rank_mlp import run_ranks, time_mlp_steps  # bench/ is the script's folder


def worker(args):
    def optimizer(tf):
        from npu_bridge.distributed.optimizers.optimizer import NPUDistributedOptimizer
        return NPUDistributedOptimizer(tf.compat.v1.train.AdamOptimizer(1e-3),
                                       is_weight_update_sharding=args.sharded)
    info, step_ms, opt_bytes = time_mlp_steps(args, optimizer)
    print("OPT_BYTES rank=%d %d" % (info.rank_id, opt_bytes), flush=True)
    if info.rank_id == 0:
        print("STEP_MS %.3f" % step_ms, flush=True)


def measure(nproc, sharded, args):
    out = run_ranks(__file__, nproc, args, extra_args=["--sharded"] if sharded else [])
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
