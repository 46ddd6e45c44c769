"""Step time of a conv + batch norm net: what bfloat16 on ranks costs without Grappler's fusions.

Run by hand: ``python bench/bench_precision_fusions.py [--rounds 5] [--steps 20]``.

A rank's session runs through a server (TensorFlow's distributed master and
worker), where a bfloat16 ``_FusedConv2D`` is rejected, so rank sessions under
bfloat16 mixed precision run with the remapper off
(``npu_bridge.distributed.cluster.bf16_fusions``). This compares, in one process and
round by round on one graph: float32 and bfloat16 in a local session (fused),
bfloat16 unfused locally and through a one-task server (what ranks run), float32
through the server, and bfloat16 with Conv2D kept float32 (the other way to stay
fused). Prints the best step time of each and its ratio to float32 local.
"""

import argparse
import os
import socket
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig  # noqa: E402

from npu_bridge.mixed_precision.precision_mode import apply_precision_mode, detect_hardware  # noqa: E402

tf.compat.v1.disable_eager_execution()

# Grappler's bfloat16 pass reads its list changes from these when it runs.
LIST_ENV = ("TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_ALLOWLIST_REMOVE",
            "TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_DENYLIST_ADD")


def build(batch, size, channels, layers):
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(1)
        rng = np.random.RandomState(0)
        h = tf.constant(rng.normal(size=(batch, size, size, channels)).astype(np.float32))
        for _ in range(layers):
            h = tf.compat.v1.layers.conv2d(h, 2 * channels, 3, padding="same",
                                           activation=tf.nn.relu)
            h = tf.compat.v1.layers.batch_normalization(h, training=True)
        loss = tf.reduce_mean(tf.square(h))
        step = tf.compat.v1.train.get_or_create_global_step()
        with tf.control_dependencies(tf.compat.v1.get_collection(
                tf.compat.v1.GraphKeys.UPDATE_OPS)):
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(
                loss, global_step=step)
        init = tf.compat.v1.global_variables_initializer()
    return graph, train_op, init


def one_task_server():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    cluster = tf.train.ClusterSpec({"worker": ["127.0.0.1:%d" % port]})
    return tf.distribute.Server(cluster, job_name="worker", task_index=0, start=True)


def variants(server):
    def config(mixed, fused=True):
        built = apply_precision_mode(None, "allow_mix_precision" if mixed
                                     else "must_keep_origin_dtype")
        if not fused:
            built.graph_options.rewrite_options.remapping = RewriterConfig.OFF
        return built
    return [
        ("float32 local", "", config(False), None),
        ("bfloat16 local, fused", "", config(True), None),
        ("bfloat16 local, unfused", "", config(True, fused=False), None),
        ("bfloat16 server, unfused (ranks)", server.target, config(True, fused=False), None),
        ("float32 server", server.target, config(False), None),
        ("bfloat16 server, Conv2D float32", server.target, config(True), "Conv2D"),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()
    graph, train_op, init = build(args.batch, 32, 16, 4)
    server = one_task_server()
    print("hardware: %s; 4 x (conv 3x3 + relu + batch norm), batch %d, 32x32x16"
          % (detect_hardware(), args.batch))
    runs = []
    for name, target, config, deny in variants(server):
        for variable in LIST_ENV if deny else ():
            os.environ[variable] = deny
        session = tf.compat.v1.Session(target, graph=graph, config=config)
        session.run(init)
        step = session.make_callable(train_op)
        for _ in range(3):  # the graph is optimized at the first run
            step()
        for variable in LIST_ENV:
            os.environ.pop(variable, None)
        runs.append((name, session, step, []))
    for _ in range(args.rounds):
        for name, _, step, times in runs:
            start = time.perf_counter()
            for _ in range(args.steps):
                step()
            times.append((time.perf_counter() - start) / args.steps)
    base = min(runs[0][3])
    for name, session, _, times in runs:
        print("%-34s %7.2f ms/step  %.2fx float32 local" % (name, min(times) * 1e3,
                                                          min(times) / base))
        session.close()


if __name__ == "__main__":
    main()
