"""What formatting graph.pbtxt costs the training thread: beside it on a thread vs in a child.

Run by hand (not a test):  PYTHONPATH=. python bench/bench_graph_text.py [--rounds 3]
Builds a graph of about the size of bench_startup.py's (a 14 MB constant, as
``Dataset.from_tensor_slices`` embeds data, and 600 small matmuls), then times
150 ``Session.run`` calls of it: alone, while a thread of this process formats
the GraphDef as text (``graph_text``, what the checkpoint saver did before),
and while a child process formats it (``text_in_child``, what it does now).
Rounds alternate the three, so that drifting load hits all of them; the table
gives each round's seconds and the ratio to the runs alone.
"""

import argparse
import threading
import time

import numpy as np
import tensorflow as tf

from npu_bridge.core import graph_text

RUNS = 150


def build():
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(np.random.rand(3_500_000).astype(np.float32), name="data")
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        h = tf.reshape(x, [1, 1])
        for i in range(600):
            h = tf.matmul(h, tf.compat.v1.get_variable("w%d" % i, [1, 1])) + 1.0
        y = tf.reduce_sum(h)
        init = tf.compat.v1.global_variables_initializer()
    return graph, x, y, init


def timed_runs(session, x, y):
    start = time.perf_counter()
    for i in range(RUNS):
        session.run(y, {x: float(i)})
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    graph, x, y, init = build()
    graph_def = graph.as_graph_def(add_shapes=True)
    session = tf.compat.v1.Session(graph=graph)
    session.run(init)
    timed_runs(session, x, y)  # executors made: later rounds only run
    beside = {"alone": None, "thread": graph_text.graph_text,
              "child process": graph_text.text_in_child}
    rows = []
    for round_number in range(args.rounds):
        seconds = {}
        for name, work in beside.items():
            worker = threading.Thread(target=work, args=(graph_def,)) if work else None
            if worker:
                worker.start()
            seconds[name] = timed_runs(session, x, y)
            if worker:
                worker.join()
        rows.append(seconds)
        print("| %d | %s |" % (round_number + 1, " | ".join(
            "%.3f (%.2fx)" % (s, s / seconds["alone"]) for s in seconds.values())), flush=True)
    print("GraphDef %.1f MB; %d runs per cell; columns: %s" % (
        graph_def.ByteSize() / 1e6, RUNS, ", ".join(beside)))


if __name__ == "__main__":
    main()
