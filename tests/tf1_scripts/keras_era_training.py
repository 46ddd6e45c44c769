"""TF 1.15 Keras (2.2.4-tf) style: one model from three Keras spellings, trained in npu_init's session.

Written as scripts of that time were: optimizers with ``lr=``/``decay=``/
``epsilon=None`` imported under every spelling, standalone-Keras module paths
(``keras.layers.convolutional``, ``keras.engine.topology`` ...), layers from
``tensorflow.python.keras`` mixed with ``tf.keras`` and ``keras`` ones, a
batch norm subclass overriding ``_moments(inputs, reduction_axes,
keep_dims)``, ``tensor._keras_shape``, ``multi_gpu_model``, and
``fit``/``evaluate``/``predict`` in the session ``set_keras_session_npu_config``
made.  Prints one JSON line (RESULT) with what the test checks.
"""
import json

import numpy as np
import tensorflow as tf
from npu_bridge.npu_init import *

import keras
import tensorflow.python.keras as python_keras
from keras.backend.tensorflow_backend import set_session as backend_set_session
from keras.engine.topology import Layer as TopologyLayer
from keras.engine.topology import get_source_inputs
from keras.layers.convolutional import Conv2D as ConvolutionalConv2D
from keras.layers.normalization import BatchNormalization as NormalizationBatchNorm
from keras.optimizers import Adam as StandaloneAdam
from keras.utils.np_utils import to_categorical
from tensorflow.keras.optimizers import Adam as TfKerasAdam
from tensorflow.python.keras import backend as K
from tensorflow.python.keras.layers import Dense as PythonDense
from tensorflow.python.keras.optimizers import Adam as PythonKerasAdam
from tensorflow.python.keras.utils import CustomObjectScope, multi_gpu_model

tf.set_random_seed(1)
np.random.seed(1)
sess = set_keras_session_npu_config()
same = {
    "Adam": [tf.keras.optimizers.Adam, TfKerasAdam, PythonKerasAdam, StandaloneAdam,
             keras.optimizers.Adam, python_keras.optimizers.Adam],
    "Dense": [tf.keras.layers.Dense, PythonDense, keras.layers.Dense, keras.layers.core.Dense,
              python_keras.layers.Dense],
    "Conv2D": [tf.keras.layers.Conv2D, ConvolutionalConv2D, keras.layers.Convolution2D],
    "BatchNormalization": [tf.keras.layers.BatchNormalization, NormalizationBatchNorm,
                           python_keras.layers.normalization.BatchNormalization],
    "Layer": [tf.keras.layers.Layer, TopologyLayer, keras.engine.base_layer.Layer],
    "CustomObjectScope": [tf.keras.utils.CustomObjectScope, CustomObjectScope,
                          keras.utils.generic_utils.CustomObjectScope],
    "set_session": [tf.keras.backend.set_session, K.set_session, backend_set_session],
}
facts = {"same": {name: all(obj is objs[0] for obj in objs) for name, objs in same.items()},
         "keras_versions": [keras.__version__, tf.keras.__version__],
         "backend_session_is_npu_session": K.get_session() is sess}

# 1. Adam with TF 1.15's lr, decay and epsilon=None on a linear model, full batches.
rng = np.random.RandomState(0)
x_lin = rng.randn(32, 3).astype(np.float32)
y_lin = (x_lin @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
lin_in = tf.keras.layers.Input(shape=(3,))
lin = tf.keras.models.Model(lin_in, PythonDense(1, kernel_initializer="zeros")(lin_in))
lin.compile(optimizer=TfKerasAdam(lr=0.1, decay=0.5, epsilon=None), loss="mse")
lin.fit(x_lin, y_lin, batch_size=32, epochs=4, shuffle=False, verbose=0)
facts["linear"] = {"kernel": lin.get_weights()[0].ravel().tolist(),
                   "bias": lin.get_weights()[1].tolist(),
                   "iterations": int(K.get_value(lin.optimizer.iterations)),
                   "epsilon": float(lin.optimizer.epsilon)}
lin.compile(optimizer="adam", loss="mse")  # a string gives the optimizers of that time too
facts["string_optimizer_is_tf115_adam"] = type(lin.optimizer) is tf.keras.optimizers.Adam


# 2. A TPU-style batch norm of that time, overriding the private _moments hook.
class EraBatchNorm(tf.keras.layers.BatchNormalization):
    calls = 0

    def _moments(self, inputs, reduction_axes, keep_dims):
        EraBatchNorm.calls += 1
        return super(EraBatchNorm, self)._moments(inputs, reduction_axes, keep_dims=keep_dims)


x = rng.randn(64, 4).astype(np.float32)
y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64)
labels = to_categorical(y, 2)
inp = keras.layers.Input(shape=(4,))
h = tf.keras.layers.Dense(16, activation="relu")(inp)
h = EraBatchNorm()(h)
h = PythonDense(8, activation="relu")(h)
facts["keras_shape"] = list(h._keras_shape)
out = keras.layers.Dense(2, activation="softmax")(h)
model = keras.models.Model(input=inp, output=out)  # Keras 1's names, which Keras 2.2 took
facts["source_inputs_are_the_input"] = get_source_inputs(out)[0] is inp
model = multi_gpu_model(model, gpus=2)
model.compile(optimizer=StandaloneAdam(lr=0.02), loss="categorical_crossentropy",
              metrics=["accuracy"])
history = model.fit(x, labels, batch_size=16, epochs=10, verbose=0)
loss, accuracy = model.evaluate(x, labels, verbose=0)
predicted = model.predict(x)
facts["model"] = {
    "losses": [float(v) for v in history.history["loss"]],
    "history_keys": sorted(history.history),
    "evaluate_loss": float(loss), "evaluate_accuracy": float(accuracy),
    "predicted": predicted.tolist(), "labels": labels.tolist(),
    "moments_calls": EraBatchNorm.calls,
    "weights_in_npu_session": all(np.array_equal(a, b) for a, b in
                                  zip(sess.run(model.weights), model.get_weights())),
}
print("RESULT " + json.dumps(facts))
