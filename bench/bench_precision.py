"""Steps/s of one MLP training graph under float32 and under precision_mode mixed.

Run by hand: ``python bench/bench_precision.py [--steps 60] [--width 2048]``.
Both configs train the same graph in the same process, so the ratio shows what
apply_precision_mode buys on this machine (bfloat16 on AVX512-BF16/AMX CPUs,
float16 on GPUs; nothing on plain CPUs).
"""

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from npu_bridge.mixed_precision.precision_mode import apply_precision_mode, detect_hardware  # noqa: E402

tf.compat.v1.disable_eager_execution()


def build(width, batch, layers):
    graph = tf.Graph()
    with graph.as_default():
        rng = np.random.RandomState(0)
        x = tf.constant(rng.rand(batch, width).astype(np.float32))
        y = tf.constant(rng.rand(batch, 1).astype(np.float32))
        h = x
        init_w = tf.compat.v1.glorot_uniform_initializer(seed=0)
        for i, units in enumerate([width] * layers + [1]):
            w = tf.compat.v1.get_variable("w%d" % i, [h.shape[1], units],
                                          initializer=init_w)
            h = tf.matmul(h, w)
            if i < layers:
                h = tf.nn.relu(h)
        pred = h
        loss = tf.reduce_mean(tf.square(pred - y))
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.train.MomentumOptimizer(1e-4, 0.9).minimize(
            loss, global_step=step)
        init = tf.compat.v1.global_variables_initializer()
    return graph, train_op, loss, init


def steps_per_second(graph, train_op, loss, init, config, steps, warmup=5):
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        sess.run(init)
        run = sess.make_callable(train_op)
        for _ in range(warmup):
            run()
        start = time.perf_counter()
        for _ in range(steps):
            run()
        elapsed = time.perf_counter() - start
        return steps / elapsed, sess.run(loss)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--width", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--layers", type=int, default=3)
    args = parser.parse_args()
    graph, train_op, loss, init = build(args.width, args.batch, args.layers)
    print("hardware: %s; MLP %d x %d, batch %d, %d steps"
          % (detect_hardware(), args.layers, args.width, args.batch, args.steps))
    rates = {}
    for mode in ("must_keep_origin_dtype", "allow_mix_precision"):
        config = apply_precision_mode(None, mode)
        rates[mode], final_loss = steps_per_second(graph, train_op, loss, init,
                                                   config, args.steps)
        print("%-24s %8.2f steps/s   final loss %.5f" % (mode, rates[mode], final_loss))
    print("mixed / float32 = %.2fx"
          % (rates["allow_mix_precision"] / rates["must_keep_origin_dtype"]))


if __name__ == "__main__":
    main()
