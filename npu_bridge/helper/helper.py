"""Original path ``npu_bridge.helper.helper``: re-exports ``get_gen_ops`` (``migration.kernels``)."""

from npu_bridge.migration.kernels import get_gen_ops  # noqa: F401
