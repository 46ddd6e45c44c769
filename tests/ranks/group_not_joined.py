"""Rank script: a plain-Session group collective that rank 1 never runs the second time.

Both ranks run the group all-reduce once; then rank 1 sleeps instead of running
it again, and rank 0's run must fail within NPU_BRIDGE_RANK_TIMEOUT instead of
waiting. Prints ``DEADLINE rank=0 after=<s> message=<first line>`` and exits 3.
"""
import sys
import time

import tensorflow as tf

from hccl.manage.api import create_group
from npu_bridge.hccl import hccl_ops
from npu_bridge.npu_init import get_rank_id

tf.compat.v1.disable_eager_execution()


def main():
    rank = get_rank_id()
    create_group("pair", 2, [0, 1])
    total = hccl_ops.allreduce(tf.ones([2]), "sum", group="pair")
    with tf.compat.v1.Session() as sess:  # the default target, as migrated scripts have
        print("JOINED rank=%d total=%s" % (rank, sess.run(total).tolist()), flush=True)
        if rank == 1:
            time.sleep(120)
            return 0
        start = time.monotonic()
        try:
            sess.run(total)
        except tf.errors.DeadlineExceededError as error:
            print("DEADLINE rank=0 after=%.1f message=%s"
                  % (time.monotonic() - start, error.message.splitlines()[0]), flush=True)
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
