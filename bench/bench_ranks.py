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
import re
import sys

from rank_mlp import run_ranks, time_mlp_steps  # bench/ is the script's folder


def worker(args):
    def optimizer(tf):
        from npu_bridge.distributed.optimizers.optimizer import NPUDistributedOptimizer
        return NPUDistributedOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.01))
    info, step_ms, _ = time_mlp_steps(args, optimizer)
    if info.rank_id == 0:
        print("STEP_MS %.3f" % step_ms, flush=True)


def measure(nproc, fused, args):
    out = run_ranks(__file__, nproc, args,
                    extra_env={"NPU_BRIDGE_GRAD_FUSION": "1" if fused else "0"}, timeout=600)
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
