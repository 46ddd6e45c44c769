"""Small helpers every layer uses.

Argument checks (``checks``), once-per-process logging (``log_once``) and the
choice of CPU kernels made before TensorFlow loads (``onednn``).

Nothing here imports TensorFlow or another part of npu_bridge, so any module may use it.
"""
