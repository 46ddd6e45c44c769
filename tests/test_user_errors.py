"""An exception raised by host_fn or input_fn code while the graph runs keeps its type."""

import numpy as np
import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_sgd_step
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig


class RecordRejected(Exception):
    """A user's own exception type."""


def _model_fn(features, labels, mode):
    loss, gs, train_op = linear_sgd_step(features, labels)

    def host_fn(step):
        def check(value):
            if value >= 5:
                raise RecordRejected("step %d is not wanted" % value)
            return value
        return [tf.py_function(check, [step[0]], tf.int64)]

    return NPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                            host_call=(host_fn, [tf.reshape(gs, [1])]))


@pytest.mark.parametrize("iterations", [1, 4])
def test_host_fn_exception_reaches_train_with_its_type(tmp_model_dir, iterations):
    est = NPUEstimator(_model_fn, config=NPURunConfig(iterations_per_loop=iterations,
                                                      model_dir=tmp_model_dir))
    with pytest.raises(RecordRejected, match="step 5 is not wanted") as caught:
        est.train(dataset_input_fn(), steps=50)
    assert isinstance(caught.value.__cause__, tf.errors.OpError)
    assert any(entry.name == "check" for entry in caught.traceback)  # the user's frame


def test_input_fn_exception_reaches_train_with_its_type(tmp_model_dir):
    def input_fn():
        def rows():
            for i in range(6):
                yield np.ones(4, np.float32), np.ones(1, np.float32)
            raise KeyError("label column missing")
        return tf.data.Dataset.from_generator(
            rows, output_signature=(tf.TensorSpec([4], tf.float32),
                                    tf.TensorSpec([1], tf.float32))).batch(2)

    def model_fn(features, labels, mode):
        loss, gs, train_op = linear_sgd_step(features, labels)
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    est = NPUEstimator(model_fn, config=NPURunConfig(iterations_per_loop=2,
                                                     model_dir=tmp_model_dir))
    with pytest.raises(KeyError, match="label column missing"):
        est.train(input_fn, steps=20)
