"""Original path ``npu_bridge.npu_cpu.npu_cpu_ops``: Ascend AI-CPU kernels, none provided here.

Any name raises NotImplementedError naming it (``migration.kernels.cpu_kernel``).
"""

from npu_bridge.migration.kernels import cpu_kernel as __getattr__  # noqa: F401
