# npu-bridge-check: stops at tensorflow.contrib.ffmpeg
"""TF 1.15 style: reads a tf.contrib part the TF1 mode does not provide (tf.contrib.ffmpeg).

"""
import tensorflow as tf

audio = tf.contrib.ffmpeg.decode_audio(tf.constant(b""), file_format="wav",
                                       samples_per_second=16000, channel_count=1)
print("RAN")
