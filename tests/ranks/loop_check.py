"""Rank script: collectives run N times inside one while_v2 loop per Session.run."""
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import while_v2

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives

tf.compat.v1.disable_eager_execution()
STEPS = 5
RUNS = 3


def main():
    info = runtime.rank_info()
    with tf.compat.v1.Graph().as_default():
        acc = tf.compat.v1.get_variable("acc", initializer=np.zeros(3, np.float32),
                                        use_resource=True)

        def body(i, total):
            mine = tf.cast(i + 1, tf.float32) * float(info.rank_id + 1) * tf.ones([3])
            a, b = collectives.fused_allreduce([mine, mine * 2.0], "sum")
            flag = collectives.allreduce_flag_all(tf.equal(i % 2, 0) | (info.rank_id == 0))
            update = acc.assign_add(a + b)
            with tf.control_dependencies([update]):
                return i + 1, total + tf.cast(flag, tf.int32)

        loop = while_v2.while_loop(lambda i, _: i < STEPS, body,
                                   [tf.constant(0), tf.constant(0)],
                                   parallel_iterations=1)
        target = runtime.ensure_server() or ""
        with tf.compat.v1.Session(target, config=runtime.session_config_for_rank()) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            for _ in range(RUNS):
                _, flags = sess.run(loop)
            final = sess.run(acc)
    size = info.rank_size
    per_step = sum(r + 1 for r in range(size)) * 3.0
    want = RUNS * sum(i + 1 for i in range(STEPS)) * per_step
    np.testing.assert_allclose(final, np.full(3, want, np.float32), rtol=1e-6)
    want_flags = STEPS if size == 1 else (STEPS + 1) // 2
    assert flags == want_flags, (flags, want_flags)
    print("LOOP_OK rank=%d acc=%s flags=%d" % (info.rank_id, final[0], flags))


if __name__ == "__main__":
    sys.exit(main())
