"""Rank script: hccl_ops results against numpy on data every rank can recompute."""
import sys

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives.collectives import broadcast_to_variables
from npu_bridge.hccl import hccl_ops

tf.compat.v1.disable_eager_execution()


def data(rank):
    rng = np.random.RandomState(100 + rank)
    return rng.uniform(0.5, 1.5, size=(4, 3)).astype(np.float32)


def main():
    size, rank = hccl_ops.get_rank_size(), hccl_ops.get_rank_id()
    every = [data(r) for r in range(size)]
    mine = tf.constant(every[rank])
    ints = tf.constant(np.arange(6, dtype=np.int64) * (rank + 1))
    ops = {
        "sum": hccl_ops.allreduce(mine, "sum"),
        "max": hccl_ops.allreduce(mine, "max"),
        "min": hccl_ops.allreduce(mine, "min"),
        "prod": hccl_ops.allreduce(mine, "prod"),
        "gather": hccl_ops.allgather(mine, size),
        "scatter": hccl_ops.reduce_scatter(mine, "sum", size),
        "bcast": hccl_ops.broadcast([mine, ints], root_rank=size - 1),
        "bcast1": hccl_ops.broadcast(mine, 0),
    }
    expect = {
        "sum": np.sum(every, 0), "max": np.max(every, 0), "min": np.min(every, 0),
        "prod": np.prod(every, 0), "gather": np.concatenate(every, 0),
        "scatter": np.split(np.sum(every, 0), size)[rank],
        "bcast": [every[-1], np.arange(6) * size], "bcast1": every[0],
    }
    # variables of every kind a broadcast carries, each rank starting from its own values
    root = size - 1
    kinds = [("f32", np.float32, tf.float32), ("bf16", np.float32, tf.bfloat16),
             ("i32", np.int32, tf.int32), ("flag", bool, tf.bool)]
    initial = {r: {name: (data(r) > 1.0 if np_type is bool else data(r) * 4).astype(np_type)
                   for name, np_type, _ in kinds}
               for r in range(size)}
    variables = [tf.compat.v1.get_variable(name, initializer=tf.cast(initial[rank][name], dtype),
                                           use_resource=True)
                 for name, _, dtype in kinds]
    variables.append(tf.compat.v1.get_variable(  # a TF1 ref variable
        "ref", initializer=tf.constant(every[rank]), use_resource=False))
    to_root = broadcast_to_variables(variables, root_rank=root)
    target = runtime.ensure_server() or ""
    with tf.compat.v1.Session(target, config=runtime.session_config_for_rank()) as sess:
        got = sess.run(ops)
        sess.run(tf.compat.v1.global_variables_initializer())
        sess.run(to_root)
        values = sess.run([tf.cast(v, tf.float32) if v.dtype.base_dtype == tf.bfloat16 else v
                           for v in variables])
    for (name, np_type, dtype), value in zip(kinds, values):
        want = initial[root][name]
        if dtype == tf.bfloat16:  # as the variable holds them
            want = want.astype(tf.bfloat16.as_numpy_dtype).astype(np.float32)
        np.testing.assert_array_equal(value, want, err_msg="variable " + name)
    np.testing.assert_array_equal(values[-1], every[root], err_msg="ref variable")
    for name, want in expect.items():
        if name == "bcast":
            for g, w in zip(got[name], want):
                np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=name)
        else:
            np.testing.assert_allclose(got[name], want, rtol=1e-6, err_msg=name)
    assert got["bcast"][1].dtype == np.int64
    print("HCCL_OK rank=%d size=%d local=%d/%d" % (rank, size, hccl_ops.get_local_rank_id(),
                                                  hccl_ops.get_local_rank_size()))


if __name__ == "__main__":
    sys.exit(main())
