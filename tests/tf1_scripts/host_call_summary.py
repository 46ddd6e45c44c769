"""TF 1.15 style: NPUEstimator whose host_call writes tf.contrib.summary scalars.

The shape of Ascend's documented host_call example: ``from tensorflow.contrib
import summary``, a writer made in ``host_call_fn``, ``always_record_summaries``,
``summary.scalar(..., step=gs)``, ``return summary.all_summary_ops()``, the
global step and loss passed as ``[1]``-shaped tensors.  One fixed batch, so the
test can replay every step in numpy.
"""
import numpy as np
import tensorflow as tf
from tensorflow.contrib import summary

from npu_bridge.estimator.npu.npu_config import NPURunConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator, NPUEstimatorSpec

flags = tf.app.flags
flags.DEFINE_string("model_dir", None, "where checkpoints and host_call events go")
flags.DEFINE_integer("steps", 20, "training steps")
flags.DEFINE_integer("iterations_per_loop", 5, "steps per Session.run")
FLAGS = flags.FLAGS

X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0],
              [0.5, 2.0], [1.5, 0.5], [3.0, 1.0], [2.0, 2.5]], np.float32)
Y = (X @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensors((X, Y)).repeat()


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    loss = tf.losses.mean_squared_error(labels, tf.matmul(features, w) + b)
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=global_step)

    def host_call_fn(gs, loss):
        gs = gs[0]
        with summary.create_file_writer(params["host_dir"], max_queue=1000).as_default():
            with summary.always_record_summaries():
                summary.scalar("host_call_loss", loss[0], step=gs)
                return summary.all_summary_ops()

    host_call = (host_call_fn, [tf.reshape(global_step, [1]), tf.reshape(loss, [1])])
    return NPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op, host_call=host_call)


def main(_):
    tf.logging.set_verbosity(tf.logging.WARN)
    config = NPURunConfig(model_dir=FLAGS.model_dir, iterations_per_loop=FLAGS.iterations_per_loop,
                          save_checkpoints_steps=FLAGS.steps)
    estimator = NPUEstimator(model_fn=model_fn, config=config,
                             params={"host_dir": FLAGS.model_dir + "/host"})
    estimator.train(input_fn, max_steps=FLAGS.steps)
    print("FINAL_STEP", estimator.get_variable_value("global_step"))


if __name__ == "__main__":
    tf.app.run()
