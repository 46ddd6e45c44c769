"""A trainer whose host_call is slow (the host trails the device), for crash and signal tests.

usage: slow_host_train.py MODEL_DIR MAX_STEPS ITERATIONS_PER_LOOP SECONDS_PER_RECORD SAVE_EVERY

Writes the seed pattern ``[tf.reshape(global_step, [1]), tf.reshape(loss, [1])]`` as
the scalar "loss" to MODEL_DIR/host, one record per step.
"""

import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from npu_bridge.npu_init import (NPUDistributedOptimizer, NPUEstimator,  # noqa: E402
                                 NPUEstimatorSpec, NPURunConfig)

model_dir, max_steps, iterations, per_record, save_every = sys.argv[1:6]
max_steps, iterations, save_every = int(max_steps), int(iterations), int(save_every)
per_record = float(per_record)
host_dir = os.path.join(model_dir, "host")


def host_fn(step, loss):
    def slow(value):
        time.sleep(per_record)
        return value
    step = tf.py_function(slow, [step[0]], tf.int64)
    with tf.compat.v2.summary.create_file_writer(host_dir).as_default():
        with tf.compat.v2.summary.record_if(True):
            tf.compat.v2.summary.scalar("loss", loss[0], step=step)
            return tf.compat.v1.summary.all_v2_summary_ops()


def model_fn(features, labels, mode):
    pred = tf.compat.v1.layers.dense(features, 1)
    loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    # Averages gradients over ranks when run by the launcher; plain SGD in one process.
    optimizer = NPUDistributedOptimizer(tf.compat.v1.train.GradientDescentOptimizer(0.01))
    train_op = optimizer.minimize(loss, global_step=global_step)
    host_call = (host_fn, [tf.reshape(global_step, [1]), tf.reshape(loss, [1])])
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)


def input_fn():
    x = np.random.RandomState(0).rand(64, 3).astype("float32")
    return tf.data.Dataset.from_tensor_slices((x, x.sum(axis=1, keepdims=True))).batch(8).repeat()


estimator = NPUEstimator(model_fn, config=NPURunConfig(
    model_dir=model_dir, iterations_per_loop=iterations, save_checkpoints_steps=save_every,
    keep_checkpoint_max=100, log_step_count_steps=None))
print("PID rank=%s pid=%d" % (os.environ.get("RANK_ID", "0"), os.getpid()), flush=True)
estimator.train(input_fn, max_steps=max_steps)
print("global_step", estimator.get_variable_value("global_step"), flush=True)
