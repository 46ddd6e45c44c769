"""Shim for the original top-level ``hccl`` package (shipped beside npu_bridge).

``hccl.manage.api``: rank queries and process groups; ``hccl.split.api``:
gradient split strategies.  The work is done by ``npu_bridge.distributed``.
"""
