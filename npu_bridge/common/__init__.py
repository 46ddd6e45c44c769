"""Small helpers every layer uses: argument checks (``checks``) and once-per-process logging (``log_once``).

Nothing here imports TensorFlow or another part of npu_bridge, so any module may use it.
"""
