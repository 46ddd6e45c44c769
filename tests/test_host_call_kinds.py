"""What real host_calls send: rank-0 and [1]-shaped scalars, batch tensors, images,
the global-step variable itself, record_if conditions, a None return."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from tensorboard.backend.event_processing import event_accumulator

from conftest import dataset_input_fn, linear_sgd_step, read_scalars
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig


def _model_fn(logdir):
    def model_fn(features, labels, mode):
        loss, gs, train_op = linear_sgd_step(features, labels)
        loss_1 = tf.reshape(loss, [1])
        images = tf.reshape(tf.tile(features, [1, 16]), [4, 8, 8, 1])

        def host_fn(global_step, loss_1, batch_labels, images):
            step = global_step  # the variable's value after this step
            writer = tf.compat.v2.summary.create_file_writer(logdir, max_queue=100)
            with writer.as_default(), tf.compat.v2.summary.record_if(tf.equal(step % 2, 0)):
                tf.compat.v2.summary.scalar("loss_1", loss_1[0], step=step)
                tf.compat.v2.summary.scalar("label_sum", tf.reduce_sum(batch_labels), step=step)
                tf.compat.v2.summary.image("inputs", images, step=step, max_outputs=2)
            # returns nothing: the writes above must run anyway
            return None

        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op,
                                host_call=(host_fn, [gs, loss_1, labels, images]))
    return model_fn


@pytest.mark.parametrize("iterations", [1, 5])
def test_shapes_images_variable_and_record_if(tmp_model_dir, iterations):
    logdir = tmp_model_dir + "/host"
    est = NPUEstimator(_model_fn(logdir), config=NPURunConfig(
        iterations_per_loop=iterations, model_dir=tmp_model_dir))
    est.train(dataset_input_fn(), steps=10)

    losses = read_scalars(logdir, "loss_1")
    assert sorted(losses) == [2, 4, 6, 8, 10]  # record_if kept the even steps only
    from conftest import make_data
    _, y = make_data(64)
    label_sums = read_scalars(logdir, "label_sum")
    for step, values in label_sums.items():
        batch = (step - 1) % 16
        assert values == [pytest.approx(float(y[batch * 4:batch * 4 + 4].sum()), rel=1e-5)]

    acc = event_accumulator.EventAccumulator(
        glob.glob(os.path.join(logdir, "events.out.tfevents.*"))[0],
        size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    images = acc.Tensors("inputs")
    assert [e.step for e in images] == [2, 4, 6, 8, 10]
    # width, height, then two encoded PNGs (max_outputs=2)
    first = tf.make_ndarray(images[0].tensor_proto)
    assert first.shape == (4,) and first[0] == b"8" and first[2][:4] == b"\x89PNG"
