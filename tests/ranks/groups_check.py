"""Rank script (4 ranks): two process groups {0,1} and {2,3}, each reducing on its own."""
import sys

import numpy as np
import tensorflow as tf

from hccl.manage.api import (create_group, destroy_group, get_group_rank_from_world_rank,
                             get_rank_id, get_rank_size, get_world_rank_from_group_rank)
from npu_bridge.distributed.cluster import runtime
from npu_bridge.hccl import hccl_ops

tf.compat.v1.disable_eager_execution()


def main():
    world, me = get_rank_size(), get_rank_id()
    assert world == 4, world
    pair = [0, 1] if me < 2 else [2, 3]
    name = "pair%d" % (me // 2)
    create_group(name, 2, pair)
    assert get_rank_size(name) == 2
    assert get_rank_id(name) == me % 2
    assert get_world_rank_from_group_rank(name, 1) == pair[1]
    assert get_group_rank_from_world_rank(pair[0], name) == 0
    mine = tf.constant(np.full([3], 10.0 ** me, np.float32))
    ops = {
        "world_sum": hccl_ops.allreduce(mine, "sum"),
        "group_sum": hccl_ops.allreduce(mine, "sum", group=name),
        "group_gather": hccl_ops.allgather(mine, 2, group=name),
        "group_bcast": hccl_ops.broadcast([mine], 1, group=name)[0],
    }
    target = runtime.ensure_server()
    with tf.compat.v1.Session(target, config=runtime.session_config_for_rank()) as sess:
        got = sess.run(ops)  # group and world collectives in one run
    np.testing.assert_allclose(got["group_sum"], np.full([3], sum(10.0 ** r for r in pair)))
    np.testing.assert_allclose(got["world_sum"], np.full([3], 1111.0))
    np.testing.assert_allclose(got["group_gather"],
                               np.concatenate([np.full([3], 10.0 ** r) for r in pair]))
    np.testing.assert_allclose(got["group_bcast"], np.full([3], 10.0 ** pair[1]))
    destroy_group(name)
    print("GROUPS_OK rank=%d group=%s sum=%g" % (me, name, got["group_sum"][0]))


if __name__ == "__main__":
    sys.exit(main())
