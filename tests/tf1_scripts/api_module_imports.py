"""TF 1.15 style: names imported from the API's submodules, and tf.compat.v1 as the whole TF1 API.

``api_module_imports.py OUT_DIR``: fits y = 3x - 1 with names imported as
TF 1.15 scripts did (``from tensorflow.train import ...``, ``from
tensorflow.summary import FileWriter``, ``from tensorflow.data import
Dataset`` with its one-shot iterator, ``import tensorflow.compat.v1 as tf`` with
``tf.contrib``), in a MonitoredSession from ``ChiefSessionCreator``; the loss
goes to OUT_DIR's events through ``FileWriter``; prints one JSON line (FACTS).
"""
import json
import sys

import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.compat import v1 as compat_v1
from tensorflow.data import Dataset
from tensorflow.summary import FileWriter, merge_all, scalar
from tensorflow.train import (ChiefSessionCreator, GradientDescentOptimizer, MonitoredSession,
                              Scaffold, get_or_create_global_step)

out_dir = sys.argv[1]
x = np.linspace(-1.0, 1.0, 64).astype(np.float32)
features, labels = (Dataset.from_tensor_slices((x, 3.0 * x - 1.0)).repeat().batch(16)
                    .make_one_shot_iterator().get_next())
w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
regularizer = tf.contrib.layers.l2_regularizer(1e-4)
loss = tf.reduce_mean(tf.square(w * features + b - labels)) + regularizer(w)
step = get_or_create_global_step()
train_op = GradientDescentOptimizer(0.3).minimize(loss, global_step=step)
scalar("loss", loss)
summaries = merge_all()

losses = []
writer = FileWriter(out_dir)
with MonitoredSession(session_creator=ChiefSessionCreator(scaffold=Scaffold())) as sess:
    for _ in range(40):
        _, value, summary, at = sess.run([train_op, loss, summaries, step])
        writer.add_summary(summary, at)
        losses.append(float(value))
    final = sess.run([w, b])
writer.close()
print("FACTS " + json.dumps({
    "compat_v1_is_tf": compat_v1 is tf and tf.compat.v1 is tf,
    "losses": losses, "w": float(final[0]), "b": float(final[1])}))
