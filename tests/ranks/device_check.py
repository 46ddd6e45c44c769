"""Rank script: report the GPU and the collective hint this rank was given, then all-reduce.

Prints ``DEVICE rank=R local=L cuda=C visible_device_list=V hint=H sum=S``.
"""
import os
import sys

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives

tf.compat.v1.disable_eager_execution()


def main():
    info = runtime.rank_info()
    local_size, local_rank = runtime.local_rank_info()
    target = runtime.ensure_server()
    told = runtime._server.server_def.default_session_config  # pylint: disable=protected-access
    with tf.Graph().as_default():
        total = collectives.allreduce(tf.constant([float(info.rank_id + 1)]), "sum")
        hint = total.op.get_attr("communication_hint").decode()
        with tf.compat.v1.Session(target, config=runtime.session_config_for_rank()) as sess:
            value = sess.run(total)[0]
    print("DEVICE rank=%d local=%d/%d cuda=%s visible_device_list=%s hint=%s sum=%g"
          % (info.rank_id, local_rank, local_size, os.environ.get("CUDA_VISIBLE_DEVICES"),
             told.gpu_options.visible_device_list or "-", hint, value), flush=True)
    collectives.barrier()


if __name__ == "__main__":
    sys.exit(main())
