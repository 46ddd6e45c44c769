"""Rank script: a plain tf.estimator.Estimator configured by npu_run_config_init, with an exporter."""
import os
import sys

import numpy as np

from npu_bridge.npu_init import *  # noqa: F401,F403
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [3, 1])
    pred = tf.matmul(features["x"], w)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    opt = npu_tf_optimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
    train_op = opt.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    rng = np.random.RandomState(get_rank_id())
    x = rng.rand(40, 3).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x.sum(1, keepdims=True))).batch(4).repeat()


def serving_input_fn():
    x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def main(model_dir):
    config = npu_run_config_init(tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=5, tf_random_seed=get_rank_id()))
    est = tf.estimator.Estimator(model_fn, config=config)
    tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(input_fn, max_steps=10, hooks=npu_hooks_append()),
        tf.estimator.EvalSpec(input_fn, steps=2, throttle_secs=0,
                              exporters=[tf.estimator.FinalExporter("final", serving_input_fn)]))
    exports = sorted(os.listdir(os.path.join(est.model_dir, "export", "final")))
    print("EXPORT_OK rank=%d own_dir=%d exports=%d w=%s" % (
        get_rank_id(), int(est.model_dir == model_dir), len(exports),
        np.round(est.get_variable_value("w").ravel(), 6).tolist()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
