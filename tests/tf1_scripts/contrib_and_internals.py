# npu-bridge-check: finds tensorflow.contrib.quantize.create_training_graph, tensorflow.contrib.legacy_seq2seq.embedding_attention_seq2seq, tensorflow.contrib.seq2seq.dynamic_decode, tensorflow.contrib.distributions.percentile
# (all on purpose: the script checks that each refusal says what to use instead)
"""TF 1.15 style: contrib by its internal paths, the TF-internal names 2.x moved, contrib's parts.

Each provided name is called with TF 1.15 arguments in a graph session and
its value printed; identities (``is``) are checked against the public
names.  Prints one JSON line.
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.contrib.framework.python.ops import add_arg_scope, arg_scope
from tensorflow.contrib.framework.python.ops import variables as framework_variables
from tensorflow.contrib.layers.python.layers import batch_norm, initializers, layers, utils
from tensorflow.contrib.slim.python.slim.nets import resnet_utils
from tensorflow.contrib.tpu.python.tpu import tpu_config, tpu_estimator, tpu_optimizer
from tensorflow.contrib.training.python.training import evaluation, hparam
from tensorflow.python.framework import graph_util, ops
from tensorflow.python.ops import array_ops, control_flow_ops, variable_scope
from tensorflow.python.pywrap_tensorflow import NewCheckpointReader
from tensorflow.python.util import nest

OUT = sys.argv[1]


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        return sess.run(fetches, feed)


def in_graph(fn):
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        return fn()


def identities():
    import tensorflow.contrib.slim as slim
    return {
        "layers.batch_norm": batch_norm is tf.contrib.layers.batch_norm,
        "layers.layers.conv2d": layers.conv2d is tf.contrib.layers.conv2d,
        "initializers.xavier": initializers.xavier_initializer is
        tf.contrib.layers.xavier_initializer,
        "utils.collect_named_outputs": utils.collect_named_outputs is
        slim.utils.collect_named_outputs,
        "framework.add_arg_scope": add_arg_scope is tf.contrib.framework.add_arg_scope,
        "framework.arg_scope": arg_scope is tf.contrib.framework.arg_scope,
        "framework.model_variable": framework_variables.model_variable is
        tf.contrib.framework.model_variable,
        "slim.nets.resnet_utils": resnet_utils is slim.nets.resnet_utils,
        "tpu.TPUEstimator": tpu_estimator.TPUEstimator is tf.contrib.tpu.TPUEstimator,
        "tpu.RunConfig": tpu_config.RunConfig is tf.contrib.tpu.RunConfig,
        "tpu.CrossShardOptimizer": tpu_optimizer.CrossShardOptimizer is
        tf.contrib.tpu.CrossShardOptimizer,
        "training.HParams": hparam.HParams is tf.contrib.training.HParams,
        "training.checkpoints_iterator": evaluation.checkpoints_iterator is
        tf.contrib.training.checkpoints_iterator,
        "ops.Tensor": ops.Tensor is tf.Tensor,
        "ops.IndexedSlices": ops.IndexedSlices is tf.IndexedSlices,
        "control_flow_ops.cond": control_flow_ops.cond is tf.cond,
        "control_flow_ops.case": control_flow_ops.case is tf.case,
        "control_flow_ops.while_loop": control_flow_ops.while_loop is tf.while_loop,
        "control_flow_ops.Assert": control_flow_ops.Assert is tf.Assert,
        "array_ops.stack": array_ops.stack is tf.stack,
        "array_ops.unstack": array_ops.unstack is tf.unstack,
        "graph_util.convert_variables_to_constants":
            graph_util.convert_variables_to_constants is
            tf.graph_util.convert_variables_to_constants,
        "NewCheckpointReader": NewCheckpointReader is tf.train.NewCheckpointReader,
        "slim.variable_scope": slim.variable_scope is variable_scope,
        "framework.nest": tf.contrib.framework.nest is nest,
    }


def moved_internals():
    x = tf.placeholder(tf.float32, [])
    branch = control_flow_ops.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0)
    case = control_flow_ops.case([(x > 5, lambda: tf.constant(50.0))], default=lambda: x)
    count = control_flow_ops.while_loop(lambda i: i < 7, lambda i: i + 2, [tf.constant(0)])
    stacked = array_ops.stack([tf.constant([1, 2]), tf.constant([3, 4])], axis=1)
    parts = array_ops.unstack(tf.constant([[1, 2], [3, 4]]))
    local = variable_scope.variable(tf.constant(4.0), name="made_by_variable_scope_variable")
    values = run([branch, case, count, stacked, parts[1], local], {x: 3.0})
    w = tf.Variable([[1.0, 2.0]], name="w")
    out = tf.matmul(tf.constant([[1.0], [1.0]]), w, name="out")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        frozen = graph_util.convert_variables_to_constants(sess, sess.graph_def, ["out"])
        path = tf.train.Saver([w]).save(sess, os.path.join(OUT, "moved", "ckpt"))
    with tf.Graph().as_default():
        frozen_out, = tf.import_graph_def(frozen, return_elements=["out:0"])
        frozen_value = run(frozen_out)
    return {"cond": float(values[0]), "case": float(values[1]), "while_loop": int(values[2]),
            "stack": values[3].tolist(), "unstack": values[4].tolist(),
            "variable": float(values[5]),
            "is_sequence": [nest.is_sequence([1]), nest.is_sequence("ab"),
                            nest.is_sequence({"a": 1})],
            "frozen_ops": sorted({n.op for n in frozen.node}),
            "frozen_out": frozen_value.tolist(),
            "checkpoint_w": NewCheckpointReader(path).get_tensor("w").tolist()}


def image_part():
    picture = np.arange(9, dtype=np.float32).reshape(3, 3)
    rotated = tf.contrib.image.rotate(picture, np.pi / 2)
    moved = tf.contrib.image.translate(picture[None, :, :, None], [1.0, 0.0])
    composed = tf.contrib.image.compose_transforms(
        tf.contrib.image.translations_to_projective_transforms([1.0, 0.0]),
        tf.contrib.image.translations_to_projective_transforms([0.0, 1.0]))
    image = tf.Variable(picture[None, :, :, None])
    grad = tf.gradients(tf.reduce_sum(tf.contrib.image.transform(image, composed)), image)[0]
    values = run([rotated, moved, composed, grad])
    return {"rotate": values[0].tolist(), "translate": values[1][0, :, :, 0].tolist(),
            "composed": values[2].tolist(), "grad": values[3][0, :, :, 0].tolist()}


def optimizers():
    init = np.array([[1.0, -2.0], [0.5, 0.5], [3.0, 1.0]], np.float32)
    results = {}
    for name, make in [("lars", lambda: tf.contrib.opt.LARSOptimizer(0.1, momentum=0.9,
                                                                     weight_decay=0.01)),
                       ("nadam", lambda: tf.contrib.opt.NadamOptimizer(0.1)),
                       ("lazy_adam", lambda: tf.contrib.opt.LazyAdamOptimizer(0.1))]:
        with tf.Graph().as_default():
            var = tf.Variable(init)
            rows = tf.gather(var, [0, 0, 2])  # rows 0 (twice) and 2: a sparse gradient
            loss = tf.reduce_sum(rows * tf.constant([[1.0, 2.0], [1.0, 2.0], [-1.0, 1.0]]))
            train = make().minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                sess.run(train)
                results[name] = sess.run(var).tolist()
    return results


def other_parts():
    logits = tf.constant([[2.0, -1.0], [0.5, 0.0]])
    labels = tf.constant([[1.0, 0.0], [0.0, 1.0]])
    losses = tf.contrib.losses.sigmoid_cross_entropy(logits, labels)  # logits first (contrib)
    accuracy = tf.contrib.metrics.accuracy(tf.constant([1, 0, 1, 1]), tf.constant([1, 1, 1, 0]))
    mean, mean_update = tf.contrib.metrics.streaming_mean(tf.constant([1.0, 3.0]))
    kl = tf.contrib.distributions.kl_divergence(tf.contrib.distributions.Normal(0.0, 1.0),
                                                tf.contrib.distributions.Normal(1.0, 2.0))
    entropy = tf.contrib.distributions.Categorical(probs=[0.25, 0.75]).entropy()
    compiled = tf.contrib.compiler.xla.compile(lambda a: a * 2.0 + 1.0, [tf.constant([1.0, 2.0])])
    with tf.contrib.compiler.jit.experimental_jit_scope():
        jitted = tf.constant(3.0) * 2.0
    tiled = tf.contrib.seq2seq.tile_batch(tf.constant([[1, 2], [3, 4]]), 2)
    seq_loss = tf.contrib.seq2seq.sequence_loss(
        tf.constant([[[2.0, 0.0], [0.0, 1.0]]]), tf.constant([[0, 1]]),
        tf.constant([[1.0, 0.0]]))
    fixed = tf.contrib.mixed_precision.LossScaleOptimizer(
        tf.train.GradientDescentOptimizer(0.5),
        tf.contrib.mixed_precision.FixedLossScaleManager(128.0))
    scaled_var = tf.Variable([1.0, 2.0])
    scaled_step = fixed.minimize(tf.reduce_sum(scaled_var * scaled_var))
    skip_var = tf.Variable([1.0])
    skip_step = fixed.minimize(tf.reduce_sum(skip_var * tf.constant([np.inf])))
    clip_var = tf.Variable([0.0, 0.0])
    clipped = tf.contrib.estimator.clip_gradients_by_norm(tf.train.GradientDescentOptimizer(1.0),
                                                          1.0)
    clip_step = clipped.minimize(tf.reduce_sum(clip_var * tf.constant([3.0, 4.0])))
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(mean_update)
        sess.run([scaled_step, skip_step, clip_step])
        values = sess.run([losses, accuracy, mean, kl, entropy, compiled, jitted, tiled, seq_loss,
                           scaled_var, skip_var, clip_var])
    analysis = tf.contrib.tfprof.model_analyzer.print_model_analysis(
        tf.get_default_graph(),
        tfprof_options=tf.contrib.tfprof.model_analyzer.TRAINABLE_VARS_PARAMS_STAT_OPTIONS)
    with tf.contrib.tfprof.ProfileContext(os.path.join(OUT, "prof"), enabled=False):
        pass
    strategy = tf.contrib.distribute.MirroredStrategy(num_gpus=0)
    resolver = tf.contrib.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec({"worker": ["127.0.0.1:1"]}))
    return {"sigmoid_cross_entropy": float(values[0]), "accuracy": float(values[1]),
            "streaming_mean": float(values[2]), "kl": float(values[3]),
            "entropy": float(values[4]), "xla": [v.tolist() for v in values[5]],
            "jit": float(values[6]), "tile_batch": values[7].tolist(),
            "sequence_loss": float(values[8]), "loss_scaled": values[9].tolist(),
            "inf_step_skipped": values[10].tolist(), "clipped": values[11].tolist(),
            "parameters": int(analysis.total_parameters),
            "mirrored_devices": list(strategy.extended.worker_devices),
            "cluster_spec": resolver.cluster_spec().as_dict(),
            "tpu_resolver": tf.contrib.cluster_resolver.TPUClusterResolver is
            tf.distribute.cluster_resolver.TPUClusterResolver,
            "mode_keys": [tf.contrib.learn.ModeKeys.TRAIN, tf.contrib.learn.ModeKeys.INFER],
            "metric_learning": callable(tf.contrib.losses.metric_learning.triplet_semihard_loss),
            "training_evaluate_repeatedly": callable(tf.contrib.training.evaluate_repeatedly)}


def refusals():
    messages = {}
    for name, probe in [("quantize", lambda: tf.contrib.quantize.create_training_graph(
                            quant_delay=0)),
                        ("legacy_seq2seq",
                         lambda: tf.contrib.legacy_seq2seq.embedding_attention_seq2seq),
                        ("seq2seq.dynamic_decode", lambda: tf.contrib.seq2seq.dynamic_decode),
                        ("distributions.percentile",
                         lambda: tf.contrib.distributions.percentile)]:
        try:
            probe()
            messages[name] = None
        except AttributeError as err:
            messages[name] = "%s: %s" % (type(err).__name__, err)
    from tensorflow.contrib import quantize  # imports: scripts use it behind a flag
    messages["quantize imports"] = quantize is tf.contrib.quantize
    try:
        from tensorflow.contrib.quantize.python import fold_batch_norms  # noqa: F401
    except ImportError as err:
        messages["import quantize.python"] = "%s: %s" % (type(err).__name__, err)
    return messages


print("RESULT " + json.dumps({
    "identities": in_graph(identities),
    "moved": in_graph(moved_internals),
    "image": in_graph(image_part),
    "optimizers": optimizers(),
    "parts": in_graph(other_parts),
    "refused": refusals(),
}))
