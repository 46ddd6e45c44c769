# npu-bridge-check: stops at keras.optimizers.Adam
"""TF 1.15 era: a standalone Keras optimizer with the ``decay=`` argument Keras 2.2 took.

(``tf.keras.optimizers`` in the TF1 API are Keras' legacy optimizers, which take it.)
"""
import tensorflow as tf
from keras.optimizers import Adam

optimizer = Adam(lr=0.001, decay=1e-6)
print("RAN", type(optimizer).__name__, tf.__version__)
