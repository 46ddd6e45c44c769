"""npu_bridge on stock TensorFlow: the Ascend adapter's Estimator API for CPU and GPU.

The public paths of the original adapter (``npu_bridge.npu_init``,
``npu_bridge.estimator.npu.npu_estimator`` ...) are thin shims; the code lives
in modules named after what they do (``spec``, ``config``, ``outfeed``,
``device_loop``, ``estimator`` ...).
"""

__version__ = "0.1.0"
