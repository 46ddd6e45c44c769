"""``tf.contrib.compiler``: ``xla.compile`` and ``jit.experimental_jit_scope``, still in TF 2.15.

``xla`` and ``jit`` are modules, as in TF 1.15 (``from
tensorflow.contrib.compiler import xla``): ``xla.compile(computation,
inputs)`` is TensorFlow's own (XLA compiles the computation, on CPU too);
``jit.experimental_jit_scope`` is TensorFlow's.  ``xla.estimator_model_fn``
(TF 1.15 compiled the whole model_fn for TPUs) returns the model_fn
unchanged: the same computation, not XLA-compiled.
"""

import types

from tensorflow.python.compiler.xla import jit as _tf_jit
from tensorflow.python.compiler.xla import xla as _tf_xla

from npu_bridge.tf1.errors import not_provided_getattr


def _estimator_model_fn(model_fn):
    """TF 1.15's decorator compiling an Estimator's model_fn with XLA; here the model_fn itself."""
    return model_fn


xla = types.ModuleType("tensorflow.contrib.compiler.xla", "contrib's XLA helpers (see compiler).")
xla.compile = _tf_xla.compile
xla.estimator_model_fn = _estimator_model_fn
xla.__getattr__ = not_provided_getattr("tf.contrib.compiler.xla")

jit = types.ModuleType("tensorflow.contrib.compiler.jit", "contrib's JIT scope (see compiler).")
jit.experimental_jit_scope = _tf_jit.experimental_jit_scope
jit.__getattr__ = not_provided_getattr("tf.contrib.compiler.jit")

__getattr__ = not_provided_getattr("tf.contrib.compiler")
