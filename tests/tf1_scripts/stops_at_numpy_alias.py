# npu-bridge-check: stops at numpy.float
"""TF 1.15 era: numpy's ``np.float`` alias (removed from numpy in 1.24).

"""
import numpy as np
import tensorflow as tf

scale = tf.constant(np.array([0.5, 2.0], dtype=np.float))
print("RAN", scale)
