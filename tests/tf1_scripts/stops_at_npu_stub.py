# npu-bridge-check: stops at npu_bridge.estimator.npu_ops.outfeed_enqueue_op
"""An Ascend-only op: npu_ops.outfeed_enqueue_op exists as a name and always raises.

"""
import tensorflow as tf
from npu_bridge.estimator import npu_ops

loss = tf.constant(1.0)
enqueue = npu_ops.outfeed_enqueue_op([loss])
print("RAN", enqueue)
