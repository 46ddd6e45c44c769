"""Original path ``npu_bridge.npu_cpu.npu_cpu_ops``: Ascend AI-CPU kernels.

``randomchoicewithmask`` is provided; any other name raises NotImplementedError
naming it (``migration.cpu_kernels``).
"""

from npu_bridge.migration.cpu_kernels import cpu_kernel as __getattr__  # noqa: F401
from npu_bridge.migration.cpu_kernels import randomchoicewithmask  # noqa: F401
