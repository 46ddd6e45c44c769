"""Rank script: trains "forever"; the rank given by --victim SIGKILLs itself midway."""
import argparse
import os
import signal
import sys
import time

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives

tf.compat.v1.disable_eager_execution()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--victim", type=int, default=1)
    parser.add_argument("--after", type=int, default=3)
    args = parser.parse_args()
    info = runtime.rank_info()
    print("PID rank=%d pid=%d" % (info.rank_id, os.getpid()), flush=True)
    total = collectives.allreduce(tf.ones([4]) * (info.rank_id + 1), "sum")
    with tf.compat.v1.Session(runtime.ensure_server() or "",
                              config=runtime.session_config_for_rank()) as sess:
        step = 0
        while True:
            sess.run(total)
            step += 1
            if step == args.after:
                print("STEPPING rank=%d" % info.rank_id, flush=True)
            if info.rank_id == args.victim and step == args.after:
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(0.01)


if __name__ == "__main__":
    sys.exit(main())
