# npu-bridge-check: finds tensorflow.contrib.lite
# (both on purpose: error_of catches their errors and the script runs)
"""Checks the runpy semantics of npu-bridge-run, what modules see, the npu_init star import and
the errors for contrib names not provided; prints the facts as JSON."""
import json
import os
import sys

import tensorflow as tf
import tensorflow.compat.v1 as tf_v1
import tensorflow.compat.v2 as tf_v2
from tensorflow.python.framework import ops
import tensorflow.python.ops.math_ops as math_ops
from tensorflow import contrib
from tensorflow.contrib.training import HParams
import tensorflow_estimator
import model_lib
import npu_bridge.core.estimator as npu_core


def error_of(action):
    try:
        action()
    except Exception as err:  # noqa: BLE001 (the test checks type and message)
        return "%s: %s" % (type(err).__name__, err)
    return None


def deep_contrib_import():
    from tensorflow.contrib.lite.python import lite  # noqa: F401


def star_import_facts():
    """The npu_init star import keeps a tf the module has, and gives the TF1 API otherwise."""
    chosen, relying = {}, {}
    exec("import tensorflow.compat.v1 as tf\nfrom npu_bridge.npu_init import *\n", chosen)
    exec("from npu_bridge.npu_init import *\n", relying)
    return {"kept_compat_v1": chosen["tf"] is tf_v1,
            "given_is_tf1_module": relying["tf"] is tf,
            "npu_names": "NPURunConfig" in relying and "npu_config_proto" in relying}


x = tf.placeholder(tf.float32, [None, 3])
y = model_lib.dense(x, 2)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    out = sess.run(y, {x: [[1.0, 2.0, 3.0]]})

print("FACTS " + json.dumps({
    "name": __name__,
    "argv": sys.argv,
    "path0": sys.path[0],
    "model_lib_same_tf": model_lib.tf_module() is tf,
    "has_session": hasattr(tf, "Session"),
    "executing_eagerly": tf.executing_eagerly(),
    "variable_type": type(tf.Variable(1.0)).__name__,
    # As in TF 1.15, tf.compat.v1 is the TF1 API itself; the real module stays in sys.modules.
    "compat_v1_is_tf1": tf_v1 is tf and sys.modules["tensorflow.compat.v1"] is not tf,
    "compat_v2_has_function": hasattr(tf_v2, "function"),
    "ops_graph": ops.get_default_graph() is tf.get_default_graph(),
    "math_ops_add": math_ops.add is sys.modules["tensorflow.python.ops.math_ops"].add,
    "contrib_is_tf_contrib": contrib is tf.contrib,
    "hparams": HParams(lr=0.5).parse("lr=0.25").lr,
    "estimator_module": tensorflow_estimator.estimator.Estimator is tf.estimator.Estimator,
    "sys_modules_tf_real": hasattr(sys.modules["tensorflow"], "function"),
    "npu_bridge_sees_real_tf": npu_core.tf is sys.modules["tensorflow"],
    "real_tf_has_no_contrib": "contrib" not in vars(sys.modules["tensorflow"]),
    "output_shape": list(out.shape),
    "star_import": star_import_facts(),
    "contrib_attribute_error": error_of(lambda: tf.contrib.lite),
    "contrib_import_error": error_of(deep_contrib_import),
    "hasattr_missing_part": hasattr(tf.contrib, "lite"),
}))
sys.exit(int(os.environ.get("EXIT_WITH", "0")))
