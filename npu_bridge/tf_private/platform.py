"""Facts about the TensorFlow build and kernels that have no public wrapper.

``onednn_enabled()``: whether this build runs oneDNN kernels (mixed precision
on CPUs picks bfloat16 only then). ``op_def(name)``: a registered op's
definition (which dtypes a fused kernel accepts). ``random_uniform``: the raw RandomUniform
kernel with explicit seeds, as the Ascend dropout-mask kernel draws.
"""

from npu_bridge.tf_private import check_version, missing

AREA = "platform"
check_version(AREA, "util._pywrap_util_port.IsMklEnabled, gen_random_ops.random_uniform")

try:
    from tensorflow.python.ops import gen_random_ops as _gen_random_ops

    random_uniform = _gen_random_ops.random_uniform
except (ImportError, AttributeError) as _error:
    raise missing(AREA, "gen_random_ops.random_uniform", "npu_ops dropout masks cannot be "
                  "drawn", _error) from _error


def onednn_enabled():
    """True when this TensorFlow build uses oneDNN (MKL) kernels; False if it cannot tell."""
    try:
        from tensorflow.python.util import _pywrap_util_port
        return bool(_pywrap_util_port.IsMklEnabled())
    except (ImportError, AttributeError):
        return False


def op_def(name):
    """The OpDef registered for op ``name``, or None."""
    from tensorflow.python.framework import op_def_registry
    return op_def_registry.get(name)
