"""The main job: a short, real training run with NPUEstimatorSpec + host_call.

``python -m npu_bridge.demo`` trains an MLP on three interleaved spirals (the
data is generated here, so nothing is downloaded), with the device loop
(iterations_per_loop) and a host_call that writes every step's loss, batch
accuracy and learning rate to TensorBoard; then it evaluates on held-out
points and prints the metrics and where the logs are.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

CLASSES = 3


def spirals(points_per_class, seed):
    """Three noisy spiral arms in 2-D, one class per arm."""
    rng = np.random.RandomState(seed)
    xs, ys = [], []
    for label in range(CLASSES):
        radius = np.linspace(0.05, 1.0, points_per_class)
        angle = label * 2 * np.pi / CLASSES + radius * 4.0 + rng.randn(points_per_class) * 0.12
        xs.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
        ys.append(np.full(points_per_class, label))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int32)
    order = rng.permutation(len(y))
    return x[order], y[order]


def make_model_fn(host_logdir):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from npu_bridge.npu_init import NPUEstimatorSpec  # pylint: disable=import-outside-toplevel

    def host_call_fn(global_step, loss, accuracy, learning_rate):
        writer = tf.compat.v2.summary.create_file_writer(host_logdir, max_queue=1000)
        with writer.as_default(), tf.compat.v2.summary.record_if(True):
            tf.compat.v2.summary.scalar("loss", loss, step=global_step)
            tf.compat.v2.summary.scalar("batch_accuracy", accuracy, step=global_step)
            tf.compat.v2.summary.scalar("learning_rate", learning_rate, step=global_step)
        return tf.compat.v1.summary.all_v2_summary_ops()

    def model_fn(features, labels, mode, params):
        hidden = features
        for width in (64, 64):
            hidden = tf.compat.v1.layers.dense(hidden, width, activation=tf.nn.relu)
        logits = tf.compat.v1.layers.dense(hidden, CLASSES)
        classes = tf.argmax(logits, axis=1, output_type=tf.int32)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return NPUEstimatorSpec(mode, predictions={"class": classes})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == tf.estimator.ModeKeys.EVAL:
            return NPUEstimatorSpec(mode, loss=loss, eval_metric_ops={
                "accuracy": tf.compat.v1.metrics.accuracy(labels, classes)})
        global_step = tf.compat.v1.train.get_global_step()
        learning_rate = tf.compat.v1.train.exponential_decay(
            params["learning_rate"], global_step, params["steps"], 0.1)
        train_op = tf.compat.v1.train.AdamOptimizer(learning_rate).minimize(
            loss, global_step=global_step)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(classes, labels), tf.float32))
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=(
            host_call_fn, [global_step, loss, accuracy, learning_rate]))

    return model_fn


def progress_hook(total_steps, stream=sys.stderr):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    class ProgressBar(tf.compat.v1.train.SessionRunHook):
        """A one-line bar, updated once per Session.run (N steps with the device loop)."""

        def begin(self):
            self._step = tf.compat.v1.train.get_global_step()
            self._start = time.time()

        def after_run(self, run_context, run_values):
            done = int(run_context.session.run(self._step))
            frac = min(done / float(total_steps), 1.0)
            rate = done / max(time.time() - self._start, 1e-9)
            bar = "#" * int(frac * 30)
            stream.write("\rtraining [%-30s] %5d/%d steps  %7.0f steps/s" % (
                bar, done, total_steps, rate))
            stream.flush()

        def end(self, session):
            stream.write("\n")

    return ProgressBar()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", default=os.path.join("runs", "demo"),
                        help="checkpoints and TensorBoard logs (default: %(default)s)")
    parser.add_argument("--steps", type=int, default=3000, help="training steps")
    parser.add_argument("--iterations-per-loop", type=int, default=100,
                        help="steps per Session.run (the device loop)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    args = parser.parse_args(argv)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    warnings.filterwarnings("ignore", message=".*is deprecated.*")
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    from npu_bridge.npu_init import NPUEstimator, NPURunConfig  # pylint: disable=import-outside-toplevel
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)

    train_x, train_y = spirals(2000, seed=0)
    test_x, test_y = spirals(500, seed=1)
    model_dir = os.path.abspath(args.model_dir)
    host_logdir = os.path.join(model_dir, "host_call")

    def train_input_fn():
        return (tf.data.Dataset.from_tensor_slices((train_x, train_y))
                .shuffle(len(train_y), seed=0).repeat().batch(args.batch_size, drop_remainder=True))

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices((test_x, test_y)).batch(250)

    estimator = NPUEstimator(
        make_model_fn(host_logdir),
        config=NPURunConfig(model_dir=model_dir, iterations_per_loop=args.iterations_per_loop,
                            save_checkpoints_steps=1000, tf_random_seed=0),
        params={"learning_rate": args.learning_rate, "steps": args.steps})
    start_step = estimator.get_variable_value("global_step") \
        if tf.train.latest_checkpoint(model_dir) else 0
    started = time.time()
    estimator.train(train_input_fn, steps=args.steps,
                    hooks=[progress_hook(start_step + args.steps)])
    seconds = time.time() - started
    metrics = estimator.evaluate(eval_input_fn)

    print("trained %d steps in %.1f s (%.0f steps/s, iterations_per_loop=%d)"
          % (args.steps, seconds, args.steps / seconds, args.iterations_per_loop))
    print("eval on %d held-out points: accuracy = %.4f, loss = %.4f, global_step = %d"
          % (len(test_y), metrics["accuracy"], metrics["loss"], metrics["global_step"]))
    print("checkpoints: %s" % model_dir)
    print("host_call summaries (one record per step): %s" % host_logdir)
    print("view them with: tensorboard --logdir %s" % model_dir)
    return metrics


if __name__ == "__main__":
    main()
