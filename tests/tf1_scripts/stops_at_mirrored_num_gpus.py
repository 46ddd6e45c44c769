# npu-bridge-check: stops at tensorflow.contrib.distribute.MirroredStrategy
"""TF 1.15 style: MirroredStrategy(num_gpus=N), an argument TF 1.15's contrib strategy took.

"""
import tensorflow as tf

strategy = tf.contrib.distribute.MirroredStrategy(num_gpus=1)
print("RAN", strategy)
