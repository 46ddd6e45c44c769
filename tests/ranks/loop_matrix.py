"""Rank script: one model_fn at iterations_per_loop 1 and 7, for the loop-equivalence matrix.

The model_fn holds what real scripts do inside it: a Keras layer, batch norm
with its update ops, summaries (scalar, histogram, image) written with
``tf.compat.v1.summary``, a host_call, an exponential moving average applied
after the step and restored in EVAL through a Scaffold's Saver, a learning
rate decayed from the global step, and NPUDistributedOptimizer (averaging over
ranks when there are several). For each N in LOOPS and each repeat it trains
STEPS steps (7 does not divide it, nor save_summary_steps) in a fresh model_dir,
evaluates with the EMA weights and writes ``<prefix>.n<N>.<repeat>.rank<R>.npz``
(every global variable) and ``.json`` (summary records, host_call records,
the evaluation), and ``.live.npz``: the variables this rank's session held when
training ended (the checkpoint is rank 0's alone when the ranks share a
model_dir, so only these show whether the ranks agree). Runs as one plain
process too (no RANK_SIZE).

usage: loop_matrix.py PREFIX WORKDIR REPEATS [PRECISION]
"""
import glob
import json
import os
import sys

import numpy as np
import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.npu_init import (NPUDistributedOptimizer, NPUEstimator, NPUEstimatorSpec,
                                 NPURunConfig, npu_hooks_append)

STEPS, SUMMARY_EVERY = 23, 4
LOOPS = (1, 7)


def input_fn(params):
    info = runtime.rank_info()
    rng = np.random.RandomState(3)
    x = rng.uniform(size=(64, 4, 4, 1)).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 0.5).astype(np.int32)
    data = tf.data.Dataset.from_tensor_slices((x, y)).shard(info.rank_size, info.rank_id)
    return data.repeat().batch(4, drop_remainder=True)


def _host_fn(model_dir):
    def host_fn(step, loss):
        with tf.compat.v2.summary.create_file_writer(model_dir + "/host").as_default():
            with tf.compat.v2.summary.record_if(True):
                tf.compat.v2.summary.scalar("host_loss", loss[0], step=step[0])
                return tf.compat.v1.summary.all_v2_summary_ops()
    return host_fn


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    global_step = tf.compat.v1.train.get_global_step()
    hidden = tf.keras.layers.Dense(8, activation="relu", kernel_initializer=tf.keras.initializers.GlorotUniform(seed=1), name="keras_dense")(
        tf.reshape(features, [-1, 16]))
    hidden = tf.compat.v1.layers.batch_normalization(hidden, training=training, name="bn")
    logits = tf.compat.v1.layers.dense(hidden, 2, kernel_initializer=tf.compat.v1.glorot_uniform_initializer(seed=2), name="out")
    loss = tf.identity(tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits), name="loss")
    ema = tf.train.ExponentialMovingAverage(0.9)
    if not training:
        saver = tf.compat.v1.train.Saver(ema.variables_to_restore())
        return NPUEstimatorSpec(mode, loss=loss, scaffold=tf.compat.v1.train.Scaffold(saver=saver),
                                eval_metric_ops={"accuracy": tf.compat.v1.metrics.accuracy(
                                    labels, tf.argmax(logits, 1))})
    learning_rate = tf.identity(tf.compat.v1.train.exponential_decay(
        0.2, global_step, 5, 0.7), name="learning_rate")
    tf.compat.v1.summary.scalar("learning_rate", learning_rate)
    tf.compat.v1.summary.histogram("logits", logits)
    tf.compat.v1.summary.image("inputs", features, max_outputs=2)
    optimizer = NPUDistributedOptimizer(
        tf.compat.v1.train.MomentumOptimizer(learning_rate, 0.9))
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        minimize = optimizer.minimize(loss, global_step=global_step)
    with tf.control_dependencies([minimize]):
        train_op = ema.apply(tf.compat.v1.trainable_variables())
    host_call = (_host_fn(params["model_dir"]),
                 [tf.reshape(global_step, [1]), tf.reshape(loss, [1])])
    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)


def records(folder):
    """(tag, step, value) of every summary in the folder's event files; images by size."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "events.out.tfevents.*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag == "global_step/sec":
                    continue
                kind = value.WhichOneof("value")
                if kind == "simple_value":
                    got = value.simple_value
                elif kind == "histo":
                    got = [value.histo.num, value.histo.sum, value.histo.min, value.histo.max]
                elif kind == "image":
                    got = [value.image.height, value.image.width, len(value.image.encoded_image_string)]
                else:  # a tensor (host_call's v2 scalars)
                    got = float(tf.make_ndarray(value.tensor))
                out.append([value.tag, int(event.step), got])
    return sorted(out, key=lambda r: (r[1], r[0]))


class _KeepLiveVariables(tf.compat.v1.train.SessionRunHook):
    """Writes every global variable's value in this rank's session at the end of train()."""

    def __init__(self, path):
        self._path = path

    def end(self, session):
        variables = tf.compat.v1.global_variables()
        values = session.run(variables)
        np.savez(self._path, **{v.op.name.replace("/", "."): x for v, x in zip(variables, values)})


def main(prefix, workdir, repeats, precision=None):
    rank = runtime.rank_info().rank_id
    for loop in LOOPS:
        for repeat in range(repeats):
            model_dir = os.path.join(workdir, "n%d.%d" % (loop, repeat))
            config = NPURunConfig(
                model_dir=model_dir, iterations_per_loop=loop, save_summary_steps=SUMMARY_EVERY,
                save_checkpoints_steps=1000, log_step_count_steps=None, tf_random_seed=7,
                precision_mode=precision)
            tag = "%s.n%d.%d.rank%d" % (prefix, loop, repeat, rank)
            est = NPUEstimator(model_fn, config=config, params={"model_dir": model_dir})
            est.train(input_fn, steps=STEPS,
                      hooks=npu_hooks_append() + [_KeepLiveVariables(tag + ".live.npz")])
            metrics = est.evaluate(input_fn, steps=3)
            np.savez(tag + ".npz", **{name.replace("/", "."): est.get_variable_value(name)
                                      for name in est.get_variable_names()})
            with open(tag + ".json", "w") as f:
                json.dump({"summaries": records(model_dir) if rank == 0 else [],
                           "host": records(model_dir + "/host") if rank == 0 else [],
                           "eval": {k: float(v) for k, v in metrics.items()}}, f)
    print("LOOP_MATRIX_DONE")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *(sys.argv[4:5] or [None]))
