"""TF 1.15's Keras, removed modules and numpy aliases in the TF1 mode (scripts through npu-bridge-run)."""
import gzip
import struct
import sys

import numpy as np
import pytest
import tensorflow as tf

from npu_bridge.tf1 import NotProvidedError
from npu_bridge.tf1.keras_era import KerasModuleNotProvided, script_module
from npu_bridge.tf1.removed import mnist
from tf1_util import run_tf1, tagged_json


def _numpy_adam_with_decay(x, y, steps, lr, decay, epsilon=1e-7, beta_1=0.9, beta_2=0.999):
    """A zero-initialised linear model under MSE, trained by Adam with TF 1.15's time decay."""
    params = [np.zeros((x.shape[1], 1)), np.zeros(1)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for k in range(steps):
        err = x @ params[0] + params[1] - y
        grads = [2 * x.T @ err / len(x), 2 * err.sum(0) / len(x)]
        decayed = lr / (1.0 + decay * k)  # k updates made before this one
        t = k + 1
        lr_t = decayed * np.sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t)
        for i, g in enumerate(grads):
            m[i] = beta_1 * m[i] + (1 - beta_1) * g
            v[i] = beta_2 * v[i] + (1 - beta_2) * g * g
            params[i] = params[i] - lr_t * m[i] / (np.sqrt(v[i]) + epsilon)
    return params


def test_tf115_keras_script_trains_unchanged():
    rc, out = run_tf1("keras_era_training.py", timeout=240)
    assert rc == 0, out[-4000:]
    facts = tagged_json(out, "RESULT")
    # Every spelling of that time gives the one Keras class.
    assert facts["same"] == {name: True for name in facts["same"]}, facts["same"]
    assert facts["backend_session_is_npu_session"] is True
    assert facts["keras_versions"] == ["2.2.4", "2.2.4"]  # TF 1.15's Keras API, parseable
    # Adam(lr=0.1, decay=0.5, epsilon=None): the rate of update k is 0.1 / (1 + 0.5 k), eps 1e-7.
    rng = np.random.RandomState(0)
    x = rng.randn(32, 3).astype(np.float32).astype(np.float64)
    y = x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3
    kernel, bias = _numpy_adam_with_decay(x, y, steps=4, lr=0.1, decay=0.5)
    linear = facts["linear"]
    assert linear["iterations"] == 4 and linear["epsilon"] == pytest.approx(1e-7)
    np.testing.assert_allclose(linear["kernel"], kernel.ravel(), rtol=1e-4)
    np.testing.assert_allclose(linear["bias"], bias, rtol=1e-3)
    undecayed, _ = _numpy_adam_with_decay(x, y, steps=4, lr=0.1, decay=0.0)
    assert not np.allclose(linear["kernel"], undecayed.ravel(), rtol=1e-2)
    # The mixed model: the era _moments override ran, _keras_shape, loss fell, evaluate/predict agree.
    assert facts["keras_shape"] == [None, 8]
    assert facts["source_inputs_are_the_input"] is True
    model = facts["model"]
    assert model["moments_calls"] >= 1
    assert model["history_keys"] == ["acc", "loss"]  # TF 1.15's name for "accuracy"
    assert facts["string_optimizer_is_tf115_adam"] is True
    assert model["evaluate_loss"] < 0.5 * model["losses"][0], model
    predicted, labels = np.array(model["predicted"]), np.array(model["labels"])
    np.testing.assert_allclose(predicted.sum(axis=1), 1.0, rtol=1e-5)
    crossentropy = -np.mean(np.sum(labels * np.log(np.clip(predicted, 1e-7, 1.0)), axis=1))
    assert model["evaluate_loss"] == pytest.approx(crossentropy, rel=1e-3)
    accuracy = np.mean(predicted.argmax(1) == labels.argmax(1))
    assert model["evaluate_accuracy"] == pytest.approx(accuracy) and accuracy >= 0.9
    assert model["weights_in_npu_session"] is True
    assert "TF1ModeWarning: multi_gpu_model(gpus=2) returns the model unchanged" in out


def _write_idx(path, magic, array, gzipped):
    data = struct.pack(">" + "I" * (1 + array.ndim), magic, *array.shape) + array.tobytes()
    with (gzip.open if gzipped else open)(path, "wb") as f:
        f.write(data)


def _mnist_like(rng, n):
    labels = rng.randint(0, 10, n).astype(np.uint8)
    images = rng.randint(0, 40, (n, 28, 28)).astype(np.uint8)
    for i, label in enumerate(labels):
        images[i, 2 * label:2 * label + 3, :] = 250  # a learnable mark per class
    return images, labels


def _write_mnist(directory, seed=1):
    rng = np.random.RandomState(seed)
    train_images, train_labels = _mnist_like(rng, 25)
    test_images, test_labels = _mnist_like(rng, 8)
    _write_idx(directory / "train-images-idx3-ubyte.gz", 2051, train_images, gzipped=True)
    _write_idx(directory / "train-labels-idx1-ubyte.gz", 2049, train_labels, gzipped=True)
    _write_idx(directory / "t10k-images-idx3-ubyte", 2051, test_images, gzipped=False)
    _write_idx(directory / "t10k-labels-idx1-ubyte", 2049, test_labels, gzipped=False)
    return train_images, train_labels, test_images, test_labels


def test_removed_modules_numpy_aliases_and_imports(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir()
    out.mkdir()
    train_images, train_labels, test_images, test_labels = _write_mnist(data)
    rc, output = run_tf1("removed_modules.py", data, out, timeout=240)
    assert rc == 0, output[-4000:]
    facts = tagged_json(output, "FACTS")
    for key in ("tensorflow_core_is_tf", "core_rewriter_config", "core_freeze_graph",
                "core_slim_is_contrib_slim", "import_module_tf", "dunder_import_tf",
                "import_module_core", "import_module_keras_adam"):
        assert facts[key] is True, key
    assert facts["star_import"] == {"config_pb2": True, "rewriter_config_pb2": True,
                                    "session": True, "atexit": True}
    # numpy's removed aliases mean what they meant before 1.24, each warned about once.
    assert facts["numpy"] == [2.5, 3, False, "float64", "object", "5", 2, "7", 4.5, "bool"]
    assert facts["numpy_warnings"] == ["np.asscalar", "np.bool", "np.float", "np.int", "np.long",
                                       "np.object", "np.str", "np.unicode"]

    # read_data_sets: the idx files' values, the first 5 training images held out.
    flat = train_images.reshape(25, 784).astype(np.float32) / 255.0
    one_hot = np.eye(10)[train_labels]
    np.testing.assert_allclose(np.load(out / "validation_images.npy"), flat[:5], rtol=1e-6)
    np.testing.assert_array_equal(np.load(out / "validation_labels.npy"), one_hot[:5])
    np.testing.assert_allclose(np.load(out / "train_images.npy"), flat[5:], rtol=1e-6)
    np.testing.assert_array_equal(np.load(out / "train_labels.npy"), one_hot[5:])
    np.testing.assert_allclose(np.load(out / "test_images.npy"),
                               test_images.reshape(8, 784) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(np.load(out / "test_labels.npy"), np.eye(10)[test_labels])
    assert facts["num_examples"] == [20, 5, 8]
    raw = np.load(out / "raw_train_images.npy")
    assert raw.dtype == np.uint8 and raw.shape == (25, 28, 28, 1)
    np.testing.assert_array_equal(raw[..., 0], train_images)
    np.testing.assert_array_equal(np.load(out / "raw_train_labels.npy"), train_labels)
    # next_batch(6) four times over 20 examples, shuffled as TF 1.15 did with seed=7: the
    # fourth batch is the first epoch's last 2 examples, then 4 of the reshuffled epoch.
    np.random.seed(7)
    order = np.arange(20)
    np.random.shuffle(order)
    second = np.arange(20)
    np.random.shuffle(second)
    epoch1, epoch2 = flat[5:][order], flat[5:][order][second]
    expected = [epoch1[0:6], epoch1[6:12], epoch1[12:18],
                np.concatenate([epoch1[18:20], epoch2[0:4]])]
    np.testing.assert_allclose(np.load(out / "batch_images.npy"), np.stack(expected), rtol=1e-6)
    assert facts["epochs_completed"] == 1
    kind, message = facts["missing_error"]
    assert kind == "MnistFilesNotFound"
    for name in ("train-images-idx3-ubyte", "t10k-labels-idx1-ubyte", str(data / "absent"),
                 "never downloads"):
        assert name in message, message
    # The tutorial's softmax regression learned on them.
    losses = facts["losses"]
    assert np.mean(losses[-5:]) < 0.1 * losses[0], losses


def test_keras_paths_of_that_time_resolve_to_the_v1_api_classes():
    v1 = tf.compat.v1.keras
    assert script_module("keras.layers.convolutional").Conv2D is v1.layers.Conv2D
    assert script_module("keras.layers.normalization").BatchNormalization is \
        v1.layers.BatchNormalization
    assert script_module("tensorflow.python.keras.layers").BatchNormalization is \
        v1.layers.BatchNormalization  # TF 1.15's v1 batch norm, not Keras 2.15's v2 one
    assert script_module("keras.layers.advanced_activations").LeakyReLU is v1.layers.LeakyReLU
    assert script_module("keras.layers").Deconvolution3D is v1.layers.Conv3DTranspose
    assert script_module("keras.layers.merge").concatenate is v1.layers.concatenate
    assert script_module("keras.layers.merge")._Merge.__name__ == "_Merge"
    assert script_module("keras.engine.topology").InputLayer is v1.layers.InputLayer
    assert script_module("keras.engine.topology").Network.__name__ == "Functional"
    assert script_module("keras.engine").Model is v1.Model
    assert script_module("keras.utils.np_utils").to_categorical is v1.utils.to_categorical
    assert script_module("keras.optimizers").SGD is v1.optimizers.SGD
    assert script_module("tensorflow.keras.optimizers").Adam is v1.optimizers.Adam
    assert script_module("tensorflow.keras.mixed_precision.experimental").Policy(
        "float32").compute_dtype == "float32"
    assert script_module("tensorflow.python").ops is sys.modules["tensorflow.python.ops"]
    assert script_module("tensorflow.python").keras is script_module("tensorflow.python.keras")
    assert script_module("tensorflow.python.keras.utils.conv_utils").__name__ == \
        "keras.src.utils.conv_utils"  # one module: given as it is
    assert script_module("tensorflow.python.ops") is None and script_module("kerastuner") is None
    assert "Dense" in script_module("keras.layers").__all__  # from keras.layers import *


def test_keras_paths_without_a_module_name_it():
    with pytest.raises(KerasModuleNotProvided) as info:
        script_module("keras.legacy.interfaces")
    assert isinstance(info.value, (ModuleNotFoundError, NotProvidedError))
    assert str(info.value).startswith(
        "keras.legacy.interfaces is not provided by npu_bridge's TF1 mode: Keras 2.15 has no "
        "module for that path")
    with pytest.raises(AttributeError, match="has no attribute 'no_such_layer'"):
        script_module("keras.layers").no_such_layer  # noqa: B018


def test_read_data_sets_checks_its_arguments(tmp_path):
    _write_mnist(tmp_path)
    with pytest.raises(ValueError, match=r"validation_size must be between 0 and 25 .*got 26"):
        mnist.read_data_sets(str(tmp_path), validation_size=26)
    with pytest.raises(TypeError, match="dtype must be uint8 or float32 .*got tf.float64"):
        mnist.read_data_sets(str(tmp_path), dtype=tf.float64, validation_size=0)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(mnist.MnistFilesNotFound) as info:
        mnist.read_data_sets(str(tmp_path))
    assert info.value.missing == ["t10k-labels-idx1-ubyte"]
    fake = mnist.read_data_sets("unused", fake_data=True, one_hot=True)
    images, labels = fake.train.next_batch(3, fake_data=True)
    assert np.array(images).shape == (3, 784) and labels == [[1] + [0] * 9] * 3


def test_names_imported_from_the_api_submodules_are_tf1s(tmp_path):
    rc, output = run_tf1("api_module_imports.py", tmp_path, timeout=180)
    assert rc == 0, output[-4000:]
    facts = tagged_json(output, "FACTS")
    assert facts["compat_v1_is_tf"] is True
    assert abs(facts["w"] - 3.0) < 0.05 and abs(facts["b"] + 1.0) < 0.05, facts
    # FileWriter wrote the loss at each global step after its run: 1..40.
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    written = [(e.step, e.value) for e in events.Scalars("loss")]
    assert [s for s, _ in written] == list(range(1, 41))
    np.testing.assert_allclose([v for _, v in written], facts["losses"], rtol=1e-6)
