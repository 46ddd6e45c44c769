"""Shim for the original path ``npu_bridge.npu_cpu.npu_cpu_ops``.

The original holds Ascend AI-CPU kernels (embedding caches, sampling ops ...)
with no stock TensorFlow counterpart here: importing works, and using any
name raises NotImplementedError naming it.
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(
        "npu_bridge: npu_cpu_ops.%s is an Ascend AI-CPU kernel with no stock TensorFlow "
        "implementation here" % name)
