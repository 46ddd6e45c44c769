"""Training steps/s: plain Estimator vs TPUEstimator(use_tpu=False) vs NPUEstimator(N) vs a bare loop.

Run by hand (not a test), from the repository root:

    /work/venv/bin/python bench/bench_loop.py                 # everything, best of 1
    /work/venv/bin/python bench/bench_loop.py --repeat 3      # best of 3 per cell
    /work/venv/bin/python bench/bench_loop.py --quick         # short smoke run
    /work/venv/bin/python bench/bench_loop.py --models tiny --variants estimator,npu100,bare
    /work/venv/bin/python bench/bench_loop.py --models tiny,mlp --calls short,long --repeat 3

What is compared (one process, one after the other, the same model_fn body and
the same input pipeline for every variant):

  estimator  tf.compat.v1.estimator.Estimator, one step per Session.run. Its
             host_call column uses a SummarySaverHook(save_steps=1) over
             tf.compat.v1.summary.scalar of the same two scalars (a plain
             Estimator has no host_call).
  tpu        TPUEstimator(use_tpu=False): host_call runs on the CPU inside each
             step's Session.run (iterations_per_loop=100 has no effect on CPU).
  npuN       NPUEstimator with iterations_per_loop=N (N = 1, 10, 100, 1000):
             N steps per Session.run in a while_v2 loop; host_call values go
             through the outfeed queue to a host thread.
  bare       tf.compat.v1.Session running the same model in a while_v2 loop of
             100 iterations (get_next inside the body, parallel_iterations=1):
             the limit of what an in-graph loop can reach. Its host_call column
             writes the two scalars with tf.summary ops inside the loop body.
             Its gradients never need the loss's value, so without a host_call
             this loop never computes the loss.
  bare_loss  the bare loop reporting its loss: each step's loss is carried out
             as a loop variable and every run fetches the last one, as
             TPUEstimator's training loop does and as every Estimator reports
             it (the loss is computed each step; no NaN check).
  keras100   Keras Model.fit(steps_per_execution=100) on the same layers, loss,
             optimizer, data and batch (TF2 eager, its traced train function).
             No host_call column (Keras has no host_call).

Whole calls (``--calls short,long``, before the per-step tables; ``--calls-only``
for just these): the wall time of one train() call of NPUEstimator N=100
against one Keras fit() call of
the same number of steps, short (20,000 tiny / 1,000 mlp / 1,000 conv steps)
and long (200,000 tiny / 5,000 mlp / 5,000 conv steps). Each variant makes one
untimed call first; the timed calls are the ones after it, as a script's
second and later calls: Keras's fit reuses its traced function, NPUEstimator's
train() rebuilds its graph, starts a session, restores the checkpoint and
writes a final one, as every Estimator call does. For NPUEstimator the parts
of each call are printed (build: train() to the hooks'
begin; session: to after_create_session; first run: to the first after_run,
which makes the run's 100 steps; steps; tail: last after_run to train()
returning). The table's "first run beyond its steps" is the first run less
100 steps at the rate of the call's later runs: what starting the loop costs.

Models: tiny (dense 10->1, batch 32, MSE), mlp (784-512-512-10 relu, batch 128,
softmax CE), conv (28x28x1: conv3x3x16, pool, conv3x3x32, pool, dense 10,
batch 64); all plain SGD. Each with and without host_call; host_call sends two
scalars per step (global_step and loss, each reshaped to [1], which TPUEstimator
requires) that are written as summaries to a temporary directory.

Measurement: graph building, session creation and the first Session.run are
excluded. A hook records the time and global step at the first after_run and
again in end(); steps/s = (steps after the first run) / elapsed. The time spent
in the final checkpoint save (CheckpointSaverHook.end, which runs before our
hook's end) is measured with a CheckpointSaverListener and subtracted; the
NPUEstimator's host_call drain (HostCallHook.end) is included, as it is work the
training owes. Checkpoints, summaries and step logging are otherwise pushed out
of the way (save_checkpoints_steps=10**9, save_summary_steps=0,
log_step_count_steps=10**9). Every run gets a fresh temporary model_dir.

Input: synthetic numpy data, from_tensor_slices -> batch(drop_remainder) ->
cache -> repeat -> prefetch(2): after the first epoch every batch comes from
memory, so the pipeline costs little and the same for all variants;
tf.data's autotuning is off (nothing to tune; see make_dataset). The
arrays are made once per process (as a script loads its data once); each
input_fn call builds the pipeline over them again, as Estimators call it.

The table per model: steps/s without and with host_call, the ratio of each to
the plain Estimator and to the bare loop ("no host_call / host_call"), and the
host_call overhead = extra time per step in % (rate_without / rate_with - 1).
The machine is small and noisy: use --repeat K (best of K) for numbers you keep.

Kernels: every variant runs in this process on the same CPU kernels, TensorFlow's
default for the machine unless TF_ENABLE_ONEDNN_OPTS says otherwise (1: oneDNN's,
0: Eigen's); the header line says which ran.
"""

import argparse
import math
import os
import platform
import shutil
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import while_v2  # noqa: E402
from tensorflow_estimator.python.estimator import run_config as run_config_lib  # noqa: E402
from tensorflow_estimator.python.estimator.tpu import tpu_config  # noqa: E402
from tensorflow_estimator.python.estimator.tpu import tpu_estimator  # noqa: E402

from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig  # noqa: E402
from npu_bridge.tf_private.platform import onednn_enabled  # noqa: E402

ModeKeys = tf.estimator.ModeKeys
NEVER = 10 ** 9
BARE_LOOP = 100
VARIANTS = ("estimator", "tpu", "npu1", "npu10", "npu100", "npu1000", "bare", "bare_loss",
            "keras100")
KERAS_EXECUTION = 100
CALL_VARIANTS = ("npu100", "keras100")
LEARNING_RATE = 0.01


# ---- models and data ------------------------------------------------------

class Model(object):
    """A model: input shape, classes (0: regression), batch, loss function, step counts.

    ``per_run`` / ``looped``: steps timed (after the first run) for variants
    making one Session.run per step / looping in the graph, chosen so that a
    measurement lasts ~2-4 s on a 2-core machine (``--scale`` multiplies them).
    ``keras``: the same network as Keras layers; ``calls``: steps of a short
    and of a long whole call (``--calls``).
    """

    def __init__(self, name, x_shape, n_classes, batch, build, per_run, looped, keras,
                 calls):
        self.name, self.x_shape, self.n_classes, self.batch = name, x_shape, n_classes, batch
        self.build, self.per_run, self.looped = build, per_run, looped
        self.keras, self.calls = keras, calls
        self._data = {}

    def numpy_data(self, n_batches=32, seed=0):
        """The model's synthetic arrays, made once per process, as a script loads its
        data once and builds its pipeline from it in each input_fn call."""
        key = (n_batches, seed)
        if key not in self._data:
            self._data[key] = self._make_data(n_batches, seed)
        return self._data[key]

    def _make_data(self, n_batches, seed):
        rng = np.random.RandomState(seed)
        n = n_batches * self.batch
        x = rng.standard_normal((n,) + self.x_shape).astype(np.float32)
        if self.n_classes:
            y = rng.randint(0, self.n_classes, size=(n,)).astype(np.int32)
        else:
            y = rng.standard_normal((n, 1)).astype(np.float32)
        return x, y


def _tiny(x, y):
    pred = tf.compat.v1.layers.dense(x, 1, name="out")
    return tf.compat.v1.losses.mean_squared_error(y, pred)


def _mlp(x, y):
    h = tf.compat.v1.layers.dense(x, 512, activation=tf.nn.relu, name="h1")
    h = tf.compat.v1.layers.dense(h, 512, activation=tf.nn.relu, name="h2")
    logits = tf.compat.v1.layers.dense(h, 10, name="out")
    return tf.compat.v1.losses.sparse_softmax_cross_entropy(y, logits)


def _conv(x, y):
    h = tf.compat.v1.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu, name="c1")
    h = tf.compat.v1.layers.max_pooling2d(h, 2, 2)
    h = tf.compat.v1.layers.conv2d(h, 32, 3, padding="same", activation=tf.nn.relu, name="c2")
    h = tf.compat.v1.layers.max_pooling2d(h, 2, 2)
    logits = tf.compat.v1.layers.dense(tf.reshape(h, [-1, 7 * 7 * 32]), 10, name="out")
    return tf.compat.v1.losses.sparse_softmax_cross_entropy(y, logits)


def _keras_tiny():
    return [tf.keras.layers.Dense(1)], "mse"


def _keras_mlp():
    return ([tf.keras.layers.Dense(512, activation="relu"),
             tf.keras.layers.Dense(512, activation="relu"), tf.keras.layers.Dense(10)],
            tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))


def _keras_conv():
    return ([tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
             tf.keras.layers.MaxPooling2D(2, 2),
             tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
             tf.keras.layers.MaxPooling2D(2, 2), tf.keras.layers.Flatten(),
             tf.keras.layers.Dense(10)],
            tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))


MODELS = {
    "tiny": Model("tiny", (10,), 0, 32, _tiny, per_run=3000, looped=30000,
                  keras=_keras_tiny, calls={"short": 20000, "long": 200000}),
    "mlp": Model("mlp", (784,), 10, 128, _mlp, per_run=400, looped=600,
                 keras=_keras_mlp, calls={"short": 1000, "long": 5000}),
    "conv": Model("conv", (28, 28, 1), 10, 64, _conv, per_run=300, looped=500,
                  keras=_keras_conv, calls={"short": 1000, "long": 5000}),
}


def make_dataset(model, batch):
    """The one input pipeline every variant uses.

    It has nothing for tf.data to tune (a fixed prefetch, no parallel map), so
    the autotuning thread is off: in TensorFlow 2.15 destroying an iterator
    waits for that thread's current sleep, which doubles up to 60 s, and Keras's
    fit() destroys its iterator at the end of every call (calls of exactly
    5.11 and 10.23 s were seen with it on; docs/device_loop.md).
    """
    x, y = model.numpy_data()
    options = tf.data.Options()
    options.autotune.enabled = False
    return (tf.data.Dataset.from_tensor_slices((x, y))
            .batch(batch, drop_remainder=True).cache().repeat().prefetch(2)
            .with_options(options))


def input_fn_for(model):
    def input_fn(params=None):
        batch = (params or {}).get("batch_size", model.batch)  # TPUEstimator passes it
        return make_dataset(model, batch)
    return input_fn


# ---- model_fns ------------------------------------------------------------

def host_values(loss):
    """The host_call tensors: global_step and loss, shaped [1] (TPUEstimator needs a batch dim)."""
    step = tf.compat.v1.train.get_global_step()
    return [tf.reshape(tf.cast(step, tf.int64), [1]), tf.reshape(loss, [1])]


def host_fn_for(logdir):
    """host_call fn: writes both scalars with the TF2 summary API, step = global_step."""
    def host_fn(step, loss):
        step = step[0]
        with tf.compat.v2.summary.create_file_writer(logdir).as_default(), \
                tf.compat.v2.summary.record_if(True):
            tf.compat.v2.summary.scalar("step", step, step=step)
            tf.compat.v2.summary.scalar("loss", loss[0], step=step)
        return tf.compat.v1.summary.all_v2_summary_ops()
    return host_fn


def train_step(model, features, labels):
    loss = model.build(features, labels)
    train_op = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    return loss, train_op


def model_fn_for(model, flavor, logdir):
    """model_fn for ``flavor`` in (estimator, tpu, npu); host_call only when logdir is set."""
    def model_fn(features, labels, mode, params=None):
        assert mode == ModeKeys.TRAIN
        loss, train_op = train_step(model, features, labels)
        if flavor == "estimator":
            hooks = []
            if logdir:
                step = tf.compat.v1.train.get_global_step()
                summary = tf.compat.v1.summary.merge([
                    tf.compat.v1.summary.scalar("step", step, collections=[]),
                    tf.compat.v1.summary.scalar("loss", loss, collections=[])])
                hooks.append(tf.compat.v1.train.SummarySaverHook(
                    save_steps=1, output_dir=logdir, summary_op=summary))
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                              training_hooks=hooks)
        host_call = (host_fn_for(logdir), host_values(loss)) if logdir else None
        if flavor == "tpu":
            return tpu_estimator.TPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                                  host_call=host_call)
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)
    return model_fn


# ---- timing ---------------------------------------------------------------

class TimingHook(tf.compat.v1.train.SessionRunHook):
    """Time and global step at the end of the first Session.run and at end()."""

    def __init__(self):
        self.start = self.stop = None
        self.cpu_start = self.cpu_stop = None
        self.step_start = self.step_stop = None
        self.excluded = 0.0  # seconds of checkpoint saving inside the window

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def after_run(self, run_context, run_values):
        if self.start is None:
            self.start, self.cpu_start = time.perf_counter(), time.process_time()
            self.step_start = run_context.session.run(self._global_step)

    def end(self, session):
        self.step_stop = session.run(self._global_step)
        self.stop, self.cpu_stop = time.perf_counter(), time.process_time()

    def result(self):
        """(steps/s, process CPU microseconds per step) over the timed window."""
        steps = self.step_stop - self.step_start
        return (steps / (self.stop - self.start - self.excluded),
                1e6 * (self.cpu_stop - self.cpu_start) / steps)


class SaveTimer(tf.compat.v1.train.CheckpointSaverListener):
    """Adds the duration of checkpoint saves made after timing started to hook.excluded."""

    def __init__(self, hook):
        self._hook = hook
        self._t = None

    def before_save(self, session, global_step_value):
        self._t = time.perf_counter()

    def after_save(self, session, global_step_value):
        if self._hook.start is not None:
            self._hook.excluded += time.perf_counter() - self._t


# ---- one measurement per variant -----------------------------------------

def loop_size(variant):
    if variant.startswith("npu"):
        return int(variant[3:])
    return {"bare": BARE_LOOP, "bare_loss": BARE_LOOP, "keras100": KERAS_EXECUTION}.get(variant, 1)


def measured_steps(model, variant, scale):
    """Steps to time: a multiple of the loop size, at least one loop."""
    n = loop_size(variant)
    base = model.looped if n > 1 else model.per_run
    return max(n, int(math.ceil(base * scale / n)) * n)


def estimator_for(variant, model, model_dir, logdir):
    common = dict(model_dir=model_dir, save_checkpoints_steps=NEVER, save_summary_steps=0,
                  log_step_count_steps=NEVER)
    if variant == "estimator":
        return tf.compat.v1.estimator.Estimator(
            model_fn_for(model, "estimator", logdir),
            config=run_config_lib.RunConfig(**common))
    if variant == "tpu":
        config = tpu_config.RunConfig(
            tpu_config=tpu_config.TPUConfig(iterations_per_loop=100), **common)
        return tpu_estimator.TPUEstimator(
            model_fn=model_fn_for(model, "tpu", logdir), config=config, use_tpu=False,
            train_batch_size=model.batch)
    config = NPURunConfig(iterations_per_loop=loop_size(variant), **common)
    return NPUEstimator(model_fn_for(model, "npu", logdir), config=config)


def run_estimator(variant, model, host_call, steps, workdir):
    """(steps/s, CPU us/step) of one Estimator-family run of loop_size + steps steps."""
    logdir = os.path.join(workdir, "host_call") if host_call else None
    est = estimator_for(variant, model, os.path.join(workdir, "model"), logdir)
    hook = TimingHook()
    est.train(input_fn_for(model), hooks=[hook], steps=loop_size(variant) + steps,
              saving_listeners=[SaveTimer(hook)])
    assert hook.step_stop - hook.step_start == steps, (hook.step_start, hook.step_stop, steps)
    return hook.result()


def build_bare_loop(model, logdir=None, report_loss=False):
    """In the default graph: (loop, init ops, global_step, writer flush op or None) of
    the bare while_v2 loop.

    ``logdir``: the loop body writes the host_call's two scalars there with
    summary ops. ``report_loss``: the loop also carries each step's loss out as
    a loop variable, fetched with the counter (as TPUEstimator's training loop
    does): a loop that trains and reports its loss, which the plain loop's
    gradients alone do not compute.
    """
    iterator = tf.compat.v1.data.make_initializable_iterator(make_dataset(model, model.batch))
    global_step = tf.compat.v1.train.get_or_create_global_step()
    writer = tf.compat.v2.summary.create_file_writer(logdir) if logdir else None

    def body(i, *unused_loss):
        features, labels = iterator.get_next()
        loss, train_op = train_step(model, features, labels)
        after = [train_op]
        if writer is not None:
            with tf.control_dependencies([train_op]):
                step = tf.cast(global_step.read_value(), tf.int64)
            with writer.as_default(), tf.compat.v2.summary.record_if(True):
                after.append(tf.compat.v2.summary.scalar("step", step, step=step))
                after.append(tf.compat.v2.summary.scalar("loss", loss, step=step))
        with tf.control_dependencies(after):
            return (i + 1, tf.identity(loss)) if report_loss else i + 1

    first = [tf.constant(0), tf.constant(0.0)] if report_loss else [tf.constant(0)]
    loop = while_v2.while_loop(lambda i, *unused_loss: i < BARE_LOOP, body, first,
                               parallel_iterations=1)
    init = [tf.compat.v1.global_variables_initializer(),
            tf.compat.v1.local_variables_initializer(), iterator.initializer]
    if writer is not None:
        init.append(writer.init())
    return loop, init, global_step, writer.flush() if writer is not None else None


def run_bare(model, host_call, steps, workdir, report_loss=False):
    """(steps/s, CPU us/step) of a tf.compat.v1.Session running while_v2 loops of
    BARE_LOOP steps (``build_bare_loop``)."""
    with tf.Graph().as_default():
        loop, init, global_step, flush = build_bare_loop(
            model, os.path.join(workdir, "host_call") if host_call else None, report_loss)
        config = run_config_lib.RunConfig().session_config  # the Estimators' default
        with tf.compat.v1.Session(config=config) as sess:
            sess.run(init)
            sess.run(loop)
            start, cpu_start = time.perf_counter(), time.process_time()
            step_start = sess.run(global_step)
            for _ in range(steps // BARE_LOOP):
                sess.run(loop)
            if flush is not None:
                sess.run(flush)
            step_stop = sess.run(global_step)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    assert step_stop - step_start == steps, (step_start, step_stop, steps)
    return steps / elapsed, 1e6 * cpu / steps


def keras_model(model):
    """The model's network as a compiled Keras model, fit(steps_per_execution=100)."""
    layers, loss = model.keras()
    net = tf.keras.Sequential([tf.keras.Input(model.x_shape)] + layers)
    net.compile(optimizer=tf.keras.optimizers.SGD(LEARNING_RATE), loss=loss,
                steps_per_execution=KERAS_EXECUTION)
    return net


def keras_dataset(model):
    """make_dataset in eager mode (Keras fit runs eagerly)."""
    with tf.init_scope():
        return make_dataset(model, model.batch)


def run_keras(model, steps):
    """(steps/s, CPU us/step) of Keras fit: one untimed execution, then ``steps`` timed."""
    net, data = keras_model(model), keras_dataset(model)
    net.fit(data, epochs=1, steps_per_epoch=KERAS_EXECUTION, verbose=0)  # traces
    start, cpu_start = time.perf_counter(), time.process_time()
    before = int(net.optimizer.iterations.numpy())
    net.fit(data, epochs=1, steps_per_epoch=steps, verbose=0)
    made = int(net.optimizer.iterations.numpy()) - before
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    assert made == steps, (made, steps)
    return steps / elapsed, 1e6 * cpu / steps


def measure(variant, model, host_call, scale):
    """(steps/s, CPU us/step), or None for a cell that does not exist (Keras host_call)."""
    if variant == "keras100":
        return None if host_call else run_keras(model, measured_steps(model, variant, scale))
    workdir = tempfile.mkdtemp(prefix="bench_loop_")
    try:
        steps = measured_steps(model, variant, scale)
        if variant in ("bare", "bare_loss"):
            return run_bare(model, host_call, steps, workdir, report_loss=variant == "bare_loss")
        return run_estimator(variant, model, host_call, steps, workdir)
    finally:
        # Estimators keep a FileWriter (and its thread) per model_dir open in a
        # process-wide cache; close them so nothing writes into a removed dir.
        tf.compat.v1.summary.FileWriterCache.clear()
        shutil.rmtree(workdir, ignore_errors=True)


# ---- whole calls ----------------------------------------------------------

class PhaseHook(tf.compat.v1.train.SessionRunHook):
    """perf_counter at begin, after_create_session, the first and the last after_run."""

    def __init__(self):
        self.begin_t = self.session_t = self.first_t = self.last_t = None

    def begin(self):
        self.begin_t = time.perf_counter()

    def after_create_session(self, session, coord):
        self.session_t = time.perf_counter()

    def after_run(self, run_context, run_values):
        self.last_t = time.perf_counter()
        if self.first_t is None:
            self.first_t = self.last_t


class Caller(object):
    """One variant's repeated whole calls of ``steps`` steps on one model (and model_dir)."""

    def __init__(self, variant, model, steps, workdir):
        self.variant, self.model, self.steps = variant, model, steps
        if variant == "keras100":
            self._net, self._data = keras_model(model), keras_dataset(model)
        else:
            self._est = estimator_for(variant, model, os.path.join(workdir, variant), None)
        self.call()  # the untimed first call: model_dir created, function traced

    def call(self):
        """(wall seconds, phases dict or None) of one call."""
        if self.variant == "keras100":
            start = time.perf_counter()
            self._net.fit(self._data, epochs=1, steps_per_epoch=self.steps, verbose=0)
            return time.perf_counter() - start, None
        hook = PhaseHook()
        start = time.perf_counter()
        self._est.train(input_fn_for(self.model), hooks=[hook], steps=self.steps)
        end = time.perf_counter()
        phases = {"build": hook.begin_t - start,
                  "session": hook.session_t - hook.begin_t,
                  "first run": hook.first_t - hook.session_t,
                  "steps": hook.last_t - hook.first_t,
                  "tail": end - hook.last_t}
        first_steps = min(loop_size(self.variant), self.steps)
        later_steps = self.steps - first_steps
        phases["first run beyond its steps"] = (
            phases["first run"] - first_steps * phases["steps"] / later_steps
            if later_steps else float("nan"))
        return end - start, phases


def run_calls(model, lengths, repeat):
    """Markdown table of best-of-``repeat`` call times; prints every call's parts."""
    workdir = tempfile.mkdtemp(prefix="bench_calls_")
    rows = []
    try:
        for length in lengths:
            steps = model.calls[length]
            callers = [Caller(v, model, steps, workdir) for v in CALL_VARIANTS]
            best = {}
            for rep in range(repeat):
                for caller in callers:
                    wall, phases = caller.call()
                    if wall < best.get(caller.variant, (float("inf"),))[0]:
                        best[caller.variant] = (wall, phases)
                    parts = ", ".join("%s %.3f" % kv for kv in (phases or {}).items())
                    print("  [%s %s rep %d] %-9s %7.3f s  %s  (load %.2f)" % (
                        model.name, length, rep + 1, caller.variant, wall, parts,
                        os.getloadavg()[0]), file=sys.stderr, flush=True)
            keras = best["keras100"][0]
            npu_wall, npu_parts = best["npu100"]
            rows.append("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
                length, steps, npu_wall, keras, keras / npu_wall,
                npu_parts["build"] + npu_parts["session"], npu_parts["first run beyond its steps"],
                npu_parts["tail"]))
    finally:
        tf.compat.v1.summary.FileWriterCache.clear()
        shutil.rmtree(workdir, ignore_errors=True)
    return "\n".join([
        "### %s (batch %d): whole calls, best of %d" % (model.name, model.batch, repeat), "",
        "| call | steps | NPUEstimator N=100 s | Keras fit(steps_per_execution=100) s "
        "| NPU speed vs Keras | NPU build + session s | NPU first run beyond its steps s "
        "| NPU tail s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|"] + rows)


# ---- report ---------------------------------------------------------------

def machine_info():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return ("nproc=%d (affinity %d), %s; Python %s; TensorFlow %s; tensorflow-estimator %s; "
            "oneDNN CPU kernels %s (TF_ENABLE_ONEDNN_OPTS=%s); load average at start %s" % (
                os.cpu_count(), len(os.sched_getaffinity(0)), cpu or platform.machine(),
                platform.python_version(), tf.__version__, _estimator_version(),
                "on" if onednn_enabled() else "off", os.environ.get("TF_ENABLE_ONEDNN_OPTS", "unset"),
                " ".join("%.2f" % v for v in os.getloadavg())))


def _estimator_version():
    try:
        from importlib.metadata import version
        return version("tensorflow-estimator")
    except Exception:  # pylint: disable=broad-except
        return "?"


LABELS = {"estimator": "Estimator", "tpu": "TPUEstimator(use_tpu=False)",
          "bare": "bare Session + while_v2(%d)" % BARE_LOOP,
          "bare_loss": "bare while_v2(%d) reporting its loss" % BARE_LOOP,
          "keras100": "Keras fit(steps_per_execution=%d)" % KERAS_EXECUTION}


def label(variant):
    return LABELS.get(variant) or "NPUEstimator N=%d" % loop_size(variant)


def _ratio(a, b):
    return "%.2f" % (a / b) if a and b else "-"


def table(model, variants, results):
    """Markdown table of results[(variant, host_call)] = steps/s."""
    ref = {hc: results.get(("estimator", hc)) for hc in (False, True)}
    bare = {hc: results.get(("bare", hc)) for hc in (False, True)}
    bare_loss = {hc: results.get(("bare_loss", hc)) for hc in (False, True)}
    keras = results.get(("keras100", False))
    lines = ["### %s (batch %d)" % (model.name, model.batch), "",
             "| variant | steps/s | steps/s host_call | vs Estimator (no hc / hc) "
             "| vs bare loop (no hc / hc) | vs bare loop reporting its loss (no hc / hc) "
             "| vs Keras fit (no hc) | host_call overhead |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for v in variants:
        off, on = results.get((v, False)), results.get((v, True))
        overhead = "%+.0f%%" % (100.0 * (off / on - 1)) if off and on else "-"
        lines.append("| %s | %s | %s | %s / %s | %s / %s | %s / %s | %s | %s |" % (
            label(v), "%.0f" % off if off else "-", "%.0f" % on if on else "-",
            _ratio(off, ref[False]), _ratio(on, ref[True]),
            _ratio(off, bare[False]), _ratio(on, bare[True]),
            _ratio(off, bare_loss[False]), _ratio(on, bare_loss[True]),
            _ratio(off, keras), overhead))
    return "\n".join(lines)


# ---- main -----------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--models", default="tiny,mlp,conv", help="comma list of tiny,mlp,conv")
    p.add_argument("--variants", default=",".join(VARIANTS),
                   help="comma list of " + ",".join(VARIANTS))
    p.add_argument("--repeat", type=int, default=1, help="best of K runs per cell")
    p.add_argument("--scale", type=float, default=1.0, help="multiply the measured steps")
    p.add_argument("--quick", action="store_true", help="smoke run: --scale 0.1, best of 1")
    p.add_argument("--calls", default="",
                   help="comma list of short,long: also time whole train()/fit() calls")
    p.add_argument("--calls-only", action="store_true", help="only the --calls tables")
    args = p.parse_args(argv)
    if args.quick:
        args.scale, args.repeat = 0.1, 1
    args.models = [m for m in args.models.split(",") if m]
    args.variants = [v for v in args.variants.split(",") if v]
    args.calls = [c for c in args.calls.split(",") if c]
    for c in args.calls:
        if c not in ("short", "long"):
            p.error("unknown call length %r" % c)
    for m in args.models:
        if m not in MODELS:
            p.error("unknown model %r" % m)
    for v in args.variants:
        if v not in VARIANTS:
            p.error("unknown variant %r" % v)
    return args


def main(argv=None):
    args = parse_args(argv)
    tf.get_logger().setLevel("ERROR")
    print("# bench_loop: training steps/s\n")
    print(machine_info())
    print("best of %d, scale %g\n" % (args.repeat, args.scale), flush=True)
    for name in args.models if args.calls else []:
        print(run_calls(MODELS[name], args.calls, args.repeat) + "\n", flush=True)
    for name in ([] if args.calls_only else args.models):
        model, results = MODELS[name], {}
        for rep in range(args.repeat):  # round robin, so drifting load hits all variants
            for variant in args.variants:
                for host_call in (False, True):
                    t0 = time.perf_counter()
                    measured = measure(variant, model, host_call, args.scale)
                    if measured is None:
                        continue
                    rate, cpu_us = measured
                    key = (variant, host_call)
                    results[key] = max(rate, results.get(key, 0.0))
                    print("  [%s rep %d] %-9s host_call=%-5s %9.1f steps/s  %8.1f CPU us/step"
                          "  (%.1f s wall, load %.2f)"
                          % (name, rep + 1, variant, host_call, rate, cpu_us,
                             time.perf_counter() - t0, os.getloadavg()[0]),
                          file=sys.stderr, flush=True)
        print(table(model, args.variants, results) + "\n", flush=True)


if __name__ == "__main__":
    main()
