"""The TF1 mode's pieces in-process (the mode itself is never switched on in the test process)."""
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from distributed_util import ROOT, env
from npu_bridge.tf1 import NotProvidedError
from npu_bridge.tf1.contrib import data as contrib_data
from npu_bridge.tf1.contrib import opt as contrib_opt
from npu_bridge.tf1.contrib import training as contrib_training
from npu_bridge.tf1.errors import ContribAttributeNotProvided
from npu_bridge.tf1.facade import tf1_module


def test_importing_npu_bridge_changes_nothing_outside_the_mode():
    code = ("import builtins, sys; before = builtins.__import__\n"
            "import npu_bridge.npu_init, npu_bridge.tf1, npu_bridge.tf1.contrib.summary\n"
            "import npu_bridge.migration_check\n"
            "import tensorflow as tf\n"
            "assert builtins.__import__ is before\n"
            "assert tf is sys.modules['tensorflow'] and hasattr(tf, 'function')\n"
            "assert not hasattr(tf, 'contrib') and tf.executing_eagerly()\n"
            "assert not npu_bridge.tf1.is_active()\n"
            "from npu_bridge.npu_init import *\n"
            "assert tf is sys.modules['tensorflow']\n"
            # TF 1.15's Keras, removed modules and numpy aliases stay off outside the mode.
            "import importlib, importlib.util, numpy as np\n"
            "assert importlib.import_module.__module__ == 'importlib'\n"
            "assert importlib.import_module('tensorflow') is tf is __import__('tensorflow')\n"
            "assert tf.keras.optimizers.Adam.__module__ == 'keras.src.optimizers.adam'\n"
            "assert not hasattr(tf.constant(1.0), '_keras_shape')\n"
            "assert importlib.util.find_spec('tensorflow_core') is None\n"
            "try:\n    import tensorflow.examples\nexcept ModuleNotFoundError: pass\n"
            "else:\n    raise AssertionError('tensorflow.examples importable')\n"
            "for name in ('float', 'int', 'bool', 'object'):\n"
            "    assert not hasattr(np, name), name\n"
            "print('UNCHANGED')\n")
    out = subprocess.run([sys.executable, "-c", code], env=env(), cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "UNCHANGED" in out.stdout, out.stderr[-3000:]


def test_star_import_keeps_the_importers_tf_outside_the_mode():
    chosen = {}
    exec("import tensorflow.compat.v1 as tf\nfrom npu_bridge.npu_init import *\n", chosen)
    assert chosen["tf"] is tf.compat.v1 or chosen["tf"].__name__ == "tensorflow.compat.v1"
    assert "NPUEstimator" in chosen and "npu_config_proto" in chosen
    relying = {}
    exec("from npu_bridge.npu_init import *\n", relying)
    assert relying["tf"] is tf


def test_facade_is_the_tf1_api_with_contrib():
    tf1 = tf1_module()
    assert tf1.Session is tf.compat.v1.Session
    assert tf1.train.MomentumOptimizer is tf.compat.v1.train.MomentumOptimizer
    assert tf1.compat.v1 is tf1 and tf1.compat.v2 is sys.modules["tensorflow.compat.v2"]
    assert tf1.python.ops is sys.modules["tensorflow.python.ops"]  # tensorflow.python, with
    assert tf1.python.keras.layers.Dense is tf.compat.v1.keras.layers.Dense  # TF 1.15's Keras
    assert tf1.contrib.tpu.InputPipelineConfig.PER_HOST_V2 == \
        tf.compat.v1.estimator.tpu.InputPipelineConfig.PER_HOST_V2
    assert tf1.contrib.data.map_and_batch is tf.compat.v1.data.experimental.map_and_batch
    assert tf1.contrib.rnn.LSTMStateTuple is tf.compat.v1.nn.rnn_cell.LSTMStateTuple
    import tf_slim
    assert tf1.contrib.slim is tf_slim
    assert tf1.contrib.layers.layer_norm is tf_slim.layer_norm
    assert tf1.contrib.framework.arg_scope is tf_slim.arg_scope
    with pytest.raises(AttributeError, match="no attribute 'get_current_name_scope' in the TF1 API"):
        tf1.get_current_name_scope  # noqa: B018  (a TF2-only name)


@pytest.mark.parametrize("expression, name", [
    ("tf1.contrib.lite", "tf.contrib.lite"),
    ("tf1.contrib.layers.real_valued_column", "tf.contrib.layers.real_valued_column"),
    ("tf1.contrib.summary.create_db_writer", "tf.contrib.summary.create_db_writer"),
    ("tf1.contrib.rnn.NASCell", "tf.contrib.rnn.NASCell"),
])
def test_missing_contrib_names_say_what_and_why(expression, name):
    tf1 = tf1_module()  # noqa: F841 (used by eval)
    with pytest.raises(ContribAttributeNotProvided) as info:
        eval(expression)
    assert isinstance(info.value, (AttributeError, NotProvidedError))
    assert str(info.value).startswith("%s is not provided by npu_bridge's TF1 mode" % name)
    assert not hasattr(tf1_module().contrib, "lite")  # hasattr stays usable


def test_hparams():
    hp = contrib_training.HParams(learning_rate=0.1, layers=[64, 32], use_bn=True, name="a")
    hp.parse("learning_rate=0.5,layers=[8,4,2],use_bn=false")
    assert hp.values() == {"learning_rate": 0.5, "layers": [8, 4, 2], "use_bn": False, "name": "a"}
    hp.add_hparam("steps", 10)
    hp.set_hparam("steps", "20")
    assert hp.steps == 20 and "steps" in hp and hp.get("missing", 3) == 3
    restored = contrib_training.HParams(**hp.values()).parse_json(hp.to_json())
    assert restored.values() == hp.values()
    with pytest.raises(ValueError, match="hparam 'steps' holds a int; cannot set it to 'x'|invalid"):
        hp.set_hparam("steps", "x")
    with pytest.raises(ValueError, match="has no hyperparameter 'nope'"):
        hp.set_hparam("nope", 1)


def test_adamw_decays_weights_before_the_adam_update():
    graph = tf.Graph()
    with graph.as_default():
        var = tf.compat.v1.get_variable("v", initializer=np.array([1.0, -2.0], np.float32))
        loss = tf.reduce_sum(var * tf.constant([0.5, 0.5]))
        opt = contrib_opt.AdamWOptimizer(weight_decay=0.1, learning_rate=0.01)
        train = opt.minimize(loss)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(train)
            after = sess.run(var)
    # Adam's first step moves each weight by lr * sign(grad); decay takes 10% first.
    np.testing.assert_allclose(after, np.array([1.0, -2.0]) * 0.9 - 0.01, rtol=1e-5)


def _batches(dataset):
    """Every element of ``dataset``, read in a graph session (the suite may have left eager off)."""
    graph = tf.Graph()
    with graph.as_default():
        element = tf.compat.v1.data.make_one_shot_iterator(dataset()).get_next()
        out = []
        with tf.compat.v1.Session() as sess:
            try:
                while True:
                    out.append(sess.run(element).tolist())
            except tf.errors.OutOfRangeError:
                return out


def test_contrib_data_helpers():
    assert _batches(lambda: tf.data.Dataset.range(7).apply(
        contrib_data.batch_and_drop_remainder(3))) == [[0, 1, 2], [3, 4, 5]]
    assert _batches(lambda: tf.data.Dataset.range(5).apply(
        contrib_data.sliding_window_batch(3, stride=1))) == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    assert _batches(lambda: tf.data.Dataset.range(6).apply(
        contrib_data.map_and_batch(lambda x: x * 10, 4))) == [[0, 10, 20, 30], [40, 50]]


def test_cudnn_lstm_returns_tf1_shapes():
    from npu_bridge.tf1.contrib import cudnn_rnn
    graph = tf.Graph()
    with graph.as_default():
        inputs = tf.ones([5, 2, 3])  # time-major: [time, batch, depth]
        outputs, (h, c) = cudnn_rnn.CudnnLSTM(2, 4, direction="bidirectional")(inputs)
        gru_outputs, (gru_h,) = cudnn_rnn.CudnnGRU(1, 6)(inputs)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            values = sess.run([outputs, h, c, gru_outputs, gru_h])
    assert [v.shape for v in values] == [(5, 2, 8), (4, 2, 4), (4, 2, 4), (5, 2, 6), (1, 2, 6)]
    # the last layer's final forward h is its output at the last time step
    np.testing.assert_allclose(values[1][2], values[0][-1, :, :4], rtol=1e-6)
    np.testing.assert_allclose(values[4][0], values[3][-1], rtol=1e-6)


def test_star_import_of_each_contrib_part_binds_what_the_part_gives():
    import importlib
    from npu_bridge.tf1.contrib import PARTS
    for part, module_name in PARTS.items():
        bound = {}
        exec("from %s import *" % module_name, bound)
        module = importlib.import_module(module_name)
        names = set(bound) - {"__builtins__"}
        assert names, part
        for name in names:
            assert bound[name] is getattr(module, name), (part, name)
        assert not {"tf", "np", "importlib", "first_of", "not_provided_getattr"} & names, part
    bound = {}
    exec("from npu_bridge.tf1.contrib.layers import *\nfrom npu_bridge.tf1.contrib.rnn import *",
         bound)
    slim_layers = importlib.import_module("tf_slim.layers")
    assert bound["fully_connected"] is slim_layers.fully_connected  # TF 1.15's star exports
    assert bound["xavier_initializer"] is slim_layers.xavier_initializer
    assert bound["RNNCell"] is tf.compat.v1.nn.rnn_cell.RNNCell
