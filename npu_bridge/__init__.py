"""npu_bridge on stock TensorFlow: the Ascend adapter's Estimator API for CPU and GPU.

The public paths of the original adapter (``npu_bridge.npu_init``,
``npu_bridge.estimator.npu.npu_estimator`` ...) are thin shims; the code lives
in folders named after what they do: ``core`` (spec, host_call, config,
estimator), ``device_loop`` (the N-step loop and the host_call outfeed),
``distributed`` (ranks), ``mixed_precision`` (loss scaling, precision_mode),
``migration`` (helpers the migration tool writes into scripts).
"""

__version__ = "0.1.0"
