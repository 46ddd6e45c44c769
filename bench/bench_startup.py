"""Start-up and wind-down costs on a model of realistic depth: plain Estimator vs NPUEstimator.

Run by hand (not a test), from the repository root:

    python bench/bench_startup.py                   # every variant, 1 and 2 ranks
    python bench/bench_startup.py --quick           # fewer steps, 1 rank only
    python bench/bench_startup.py --variants npu100 --ranks 2

The model is a stack of depthwise-separable inverted-residual blocks with batch
norm (the shape of EfficientNet-B0 / MobileNetV2 at 32x32 images): 16 blocks,
about 250 variables, momentum SGD through ``NPUDistributedOptimizer`` (a no-op
with one rank). Every variant trains the same model_fn on the same generated
data in a fresh process, calling ``train()`` twice as real scripts do (train,
then train more), with the same checkpoint, summary and logging settings.

Variants: ``estimator`` (tf.compat.v1.estimator.Estimator with a RunConfig of
the same settings), ``npu1`` and ``npu100`` (NPUEstimator, iterations_per_loop
1 and 100). With ``--ranks 2`` each variant also runs as two ranks through
``npu_bridge.launch`` (rank 0's figures; both ranks share the 2 cores).

Phases of the first train() call, timed by a hook passed to train():
  build     train() called -> hooks' begin() (input_fn, model_fn, loop tracing)
  session   begin() -> after_create_session() (session, restore/init, broadcast)
  first     after_create_session() -> first after_run(), less the time its steps take at
            the steady rate (a looped first run makes N steps)
  steps/s   global steps per second between the first and last after_run()
  tail      last after_run() -> train() returns (final checkpoint, drain, barrier)
and, after both calls, the bytes of the event files and graph.pbtxt in model_dir.
Each phase is printed with its ratio to the plain Estimator at one rank.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANTS = ("estimator", "npu1", "npu100")
IMAGE, CLASSES, BATCH = 32, 10, 8
# (expansion, output channels, stride) per block: 16 blocks as in EfficientNet-B0.
BLOCKS = ([(1, 16, 1)] + [(6, 24, 2), (6, 24, 1)] + [(6, 40, 2), (6, 40, 1)]
          + [(6, 48, 1)] * 3 + [(6, 64, 2)] * 3 + [(6, 80, 1)] * 4 + [(6, 96, 1)])


# ---- worker: one training run in this process --------------------------------

def _build_network(tf, images, training):
    layers = tf.compat.v1.layers

    def bn(x, name):
        return layers.batch_normalization(x, training=training, name=name)

    x = tf.nn.relu6(bn(layers.conv2d(images, 16, 3, padding="same", use_bias=False,
                                     name="stem"), "stem_bn"))
    channels = 16
    for index, (expand, out, stride) in enumerate(BLOCKS):
        with tf.compat.v1.variable_scope("block%d" % index):
            h = tf.nn.relu6(bn(layers.conv2d(x, channels * expand, 1, use_bias=False,
                                             name="expand"), "expand_bn"))
            depthwise = tf.compat.v1.get_variable(
                "depthwise", [3, 3, channels * expand, 1],
                initializer=tf.compat.v1.glorot_uniform_initializer())
            h = tf.nn.depthwise_conv2d(h, depthwise, [1, stride, stride, 1], "SAME")
            h = tf.nn.relu6(bn(h, "depthwise_bn"))
            h = bn(layers.conv2d(h, out, 1, use_bias=False, name="project"), "project_bn")
            x = x + h if (stride == 1 and channels == out) else h
            channels = out
    x = tf.nn.relu6(bn(layers.conv2d(x, 128, 1, use_bias=False, name="head"), "head_bn"))
    return layers.dense(tf.reduce_mean(x, axis=[1, 2]), CLASSES, name="logits")


def _model_fn(features, labels, mode):
    import tensorflow as tf
    from npu_bridge.npu_init import NPUDistributedOptimizer, NPUEstimatorSpec

    logits = _build_network(tf, features, mode == tf.estimator.ModeKeys.TRAIN)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = NPUDistributedOptimizer(tf.compat.v1.train.MomentumOptimizer(0.01, 0.9))
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn():
    import numpy as np
    import tensorflow as tf
    rng = np.random.RandomState(0)
    x = rng.standard_normal((32 * BATCH, IMAGE, IMAGE, 3)).astype(np.float32)
    y = rng.randint(0, CLASSES, size=(32 * BATCH,)).astype(np.int32)
    return (tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH, drop_remainder=True)
            .cache().repeat().prefetch(2))


def _phase_hook(tf, marks):
    class PhaseHook(tf.compat.v1.train.SessionRunHook):
        """Records wall times at the phase boundaries and the global step after each run."""

        def begin(self):
            marks["begin"] = time.perf_counter()
            self._step = tf.compat.v1.train.get_global_step()

        def after_create_session(self, session, coord):
            marks["session"] = time.perf_counter()

        def after_run(self, run_context, run_values):
            now = time.perf_counter()
            step = int(run_context.session.run(self._step))  # after the run, not racing it
            marks.setdefault("first", now)
            marks.setdefault("first_step", step)
            marks["last"], marks["last_step"] = now, step

    return PhaseHook()


def _model_bytes(model_dir):
    events = sum(os.path.getsize(p) for p in glob.glob(
        os.path.join(model_dir, "**", "events.out.tfevents.*"), recursive=True))
    graph = os.path.getsize(os.path.join(model_dir, "graph.pbtxt")) \
        if os.path.exists(os.path.join(model_dir, "graph.pbtxt")) else 0
    return events, graph


def worker(args):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    from npu_bridge.distributed.cluster import runtime
    from npu_bridge.npu_init import NPUEstimator, NPURunConfig, npu_run_config_init

    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    settings = dict(model_dir=args.model_dir, save_checkpoints_steps=args.steps,
                    save_summary_steps=100, log_step_count_steps=100, tf_random_seed=1)
    if args.variant == "estimator":
        config = npu_run_config_init(tf.estimator.RunConfig(**settings))
        estimator = tf.compat.v1.estimator.Estimator(_model_fn, config=config)
    else:
        iterations = int(args.variant[len("npu"):])
        estimator = NPUEstimator(_model_fn, config=NPURunConfig(
            iterations_per_loop=iterations, **settings))
    calls = []
    for _ in range(2):
        marks = {}
        step_before = int(estimator.get_variable_value("global_step")) if calls else 0
        start = time.perf_counter()
        estimator.train(_input_fn, steps=args.steps, hooks=[_phase_hook(tf, marks)])
        marks["returned"] = time.perf_counter()
        calls.append({
            "build": marks["begin"] - start,
            "session": marks["session"] - marks["begin"],
            "first": marks["first"] - marks["session"],
            "first_steps": marks["first_step"] - step_before,
            "steps_per_sec": (marks["last_step"] - marks["first_step"])
            / max(marks["last"] - marks["first"], 1e-9),
            "tail": marks["returned"] - marks["last"],
            "final_step": marks["last_step"]})
        call = calls[-1]
        # The first run makes N steps under a loop: count only what it costs beyond them.
        call["first_overhead"] = call["first"] - call["first_steps"] / call["steps_per_sec"]
    events, graph = _model_bytes(args.model_dir)
    print("RESULT " + json.dumps({"rank": runtime.rank_info().rank_id, "calls": calls,
                                  "event_bytes": events, "graph_bytes": graph}), flush=True)


# ---- driver: every variant in a fresh process ---------------------------------

def measure(variant, ranks, args):
    model_dir = tempfile.mkdtemp(prefix="bench_startup_")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TF_CPP_MIN_LOG_LEVEL="2")
    for name in ("RANK_SIZE", "RANK_ID", "NPU_BRIDGE_HOSTS", "TF_CONFIG"):
        env.pop(name, None)
    command = [os.path.abspath(__file__), "--worker", "--variant", variant,
               "--steps", str(args.steps), "--model-dir", model_dir]
    if ranks > 1:
        command = [sys.executable, "-m", "npu_bridge.launch", "-n", str(ranks)] + command
    else:
        command = [sys.executable] + command
    try:
        out = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                             timeout=args.timeout)
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    found = None
    for line in out.stdout.splitlines():
        if "RESULT " in line:
            result = json.loads(line.split("RESULT ", 1)[1])
            if args.verbose:
                print("  rank %d: %s" % (result["rank"], json.dumps(result["calls"])))
            if result["rank"] == 0:
                found = result
    if found is not None:
        return found
    sys.stderr.write("%s with %d rank(s) failed (exit %d):\n%s\n"
                     % (variant, ranks, out.returncode, (out.stdout + out.stderr)[-3000:]))
    return None


def report(results):
    base = results.get(("estimator", 1))
    columns = [("build", "build s"), ("session", "session s"),
               ("first_overhead", "first run s (beyond its steps)"),
               ("steps_per_sec", "steps/s"), ("tail", "tail s")]
    print("\n| variant | ranks | " + " | ".join(t for _, t in columns)
          + " | events MB | graph.pbtxt MB |")
    print("|---|---:|" + "---:|" * (len(columns) + 2))
    for (variant, ranks), result in results.items():
        if result is None:
            print("| %s | %d | failed |" % (variant, ranks))
            continue
        cells = []
        for key, _ in columns:
            value = result["calls"][0][key]
            ratio = value / base["calls"][0][key] if base and base["calls"][0][key] else None
            cells.append("%.2f (%.2fx)" % (value, ratio) if ratio is not None else "%.2f" % value)
        for key in ("event_bytes", "graph_bytes"):
            value = result[key] / 1e6
            ratio = result[key] / base[key] if base and base[key] else None
            cells.append("%.2f (%.2fx)" % (value, ratio) if ratio is not None else "%.2f" % value)
        print("| %s | %d | %s |" % (variant, ranks, " | ".join(cells)))
    print("\nSecond train() call (build / session / tail, s):")
    for (variant, ranks), result in results.items():
        if result is not None:
            second = result["calls"][1]
            print("  %-9s %d rank(s): %.2f / %.2f / %.2f, final step %d"
                  % (variant, ranks, second["build"], second["session"], second["tail"],
                     second["final_step"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--ranks", default="1,2", help="comma-separated rank counts")
    parser.add_argument("--steps", type=int, default=300, help="steps per train() call")
    parser.add_argument("--quick", action="store_true", help="100 steps, 1 rank")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--verbose", action="store_true", help="print every rank's phases")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    if args.quick:
        args.steps, args.ranks = 100, "1"
    results = {}
    for ranks in [int(r) for r in args.ranks.split(",")]:
        for variant in args.variants.split(","):
            if variant not in VARIANTS:
                parser.error("--variants: %r is not one of %s" % (variant, ", ".join(VARIANTS)))
            started = time.perf_counter()
            results[(variant, ranks)] = measure(variant, ranks, args)
            print("%s, %d rank(s): %.0f s" % (variant, ranks, time.perf_counter() - started),
                  flush=True)
    report(results)


if __name__ == "__main__":
    main()
