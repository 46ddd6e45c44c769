"""The outfeed's bounds: queue size fixed by record bytes, device not lock-stepped to the host."""

import time

import pytest
import tensorflow as tf

from conftest import dataset_input_fn, linear_sgd_step
from npu_bridge.npu_init import NPUEstimator, NPUEstimatorSpec, NPURunConfig
from npu_bridge.device_loop.outfeed import MAX_QUEUE_RECORDS, QUEUE_BYTES_BUDGET, Outfeed


@pytest.mark.parametrize("shape,expected", [
    ([], MAX_QUEUE_RECORDS),                          # scalars: the count bound
    ([32, 224, 224, 3], QUEUE_BYTES_BUDGET // (32 * 224 * 224 * 3 * 4)),  # image batches: bytes
    ([1024, 1024, 64], 2),                            # records over the budget: still 2
])
def test_queue_capacity_is_bounded_by_bytes_and_count(shape, expected):
    with tf.Graph().as_default():
        outfeed = Outfeed((lambda x: [], [tf.zeros(shape)]))
        outfeed.enqueue([])
        assert outfeed.capacity == expected
        outfeed.build_host_side()
        assert outfeed.block == max(1, min(64, expected // 2))


def test_device_runs_ahead_of_a_slow_host(tmp_model_dir):
    """200 records at 10 ms each keep the host busy ~2 s; the device must not wait for it."""
    per_record = 0.01
    steps = 200

    def model_fn(features, labels, mode):
        loss, gs, train_op = linear_sgd_step(features, labels)

        def host_fn(step):
            def slow(value):
                time.sleep(per_record)
                seen.append(int(value))
                return value
            return [tf.py_function(slow, [step], tf.int64)]
        return NPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=(host_fn, [gs]))

    class DeviceDone(tf.compat.v1.train.SessionRunHook):
        def after_run(self, run_context, run_values):
            self.at = time.time()

    seen = []
    done = DeviceDone()
    # Checkpoints wait for the host (they are consistent cuts); none falls inside the run.
    est = NPUEstimator(model_fn, config=NPURunConfig(iterations_per_loop=50,
                                                     model_dir=tmp_model_dir,
                                                     save_checkpoints_steps=1000))
    start = time.time()
    est.train(dataset_input_fn(), steps=steps, hooks=[done])
    finished = time.time()
    assert seen == list(range(1, steps + 1))  # every record, in order, none lost
    assert finished - start >= steps * per_record
    # The last device run ended while the host still had most of its work ahead.
    assert finished - done.at > 0.5 * steps * per_record


def test_one_host_run_takes_every_queued_record_in_order_then_ends_on_a_closed_queue():
    """The host takes what is queued in one run (fn once per record, in order), and
    a run on a closed, empty queue ends the host side."""
    with tf.Graph().as_default():
        seen = tf.compat.v1.Variable("", use_resource=True, trainable=False)
        value = tf.compat.v1.placeholder_with_default(tf.constant(0, tf.int64), [])

        def fn(x):
            return [seen.assign(tf.strings.join([seen.read_value(), tf.strings.as_string(x),
                                                 ","]))]

        outfeed = Outfeed((fn, [value]))
        send = outfeed.enqueue([])
        outfeed.build_host_side()
        with tf.compat.v1.Session() as session:
            session.run([tf.compat.v1.global_variables_initializer(),
                         tf.compat.v1.local_variables_initializer()])
            for v in range(1, 8):
                session.run(send, {value: v})
            assert session.run(outfeed.host_run) == 7
            assert session.run(seen) == b"1,2,3,4,5,6,7,"
            assert outfeed.upkeep(session) == (7, 7)
            session.run(send, {value: 8})
            assert outfeed.upkeep(session, flush=True) == (8, 7)  # closes nothing
            session.run(send, {value: 9})
            assert outfeed.upkeep(session, close=True) == (9, 7)
            assert session.run(outfeed.host_run) == 2  # what was left before the close
            with pytest.raises(tf.errors.OutOfRangeError):
                session.run(outfeed.host_run)
            assert session.run(seen) == b"1,2,3,4,5,6,7,8,9,"


def test_upkeep_starts_flushes_and_closes_in_one_combination_of_fetches(tmp_path):
    """The upkeep run starts fn's writer once however often it runs, writes the start
    event it is given before any record, flushes on request, and closes the queue."""
    import glob
    import os
    from tensorflow.core.util import event_pb2

    logdir = str(tmp_path)
    with tf.Graph().as_default():
        value = tf.compat.v1.placeholder_with_default(tf.constant(0, tf.int64), [])
        step = tf.compat.v1.placeholder_with_default(tf.constant(0, tf.int64), [])

        def fn(x, s):
            writer = tf.summary.create_file_writer(logdir)
            with writer.as_default():
                return [tf.summary.scalar("x", tf.cast(x, tf.float32), step=s)]

        outfeed = Outfeed((fn, [value, step]))
        send = outfeed.enqueue([])
        outfeed.build_host_side()
        assert outfeed.has_writers
        start = event_pb2.Event(wall_time=1.0, step=3, session_log=event_pb2.SessionLog(
            status=event_pb2.SessionLog.START))
        with tf.compat.v1.Session() as session:
            session.run([tf.compat.v1.global_variables_initializer(),
                         tf.compat.v1.local_variables_initializer()])
            assert outfeed.upkeep(session, start_event=start.SerializeToString(),
                                  flush=True) == (0, 0)
            for v in range(3, 6):
                session.run(send, {value: 10 * v, step: v})
            assert outfeed.upkeep(session) == (3, 0)  # polls, starts no second writer
            assert session.run(outfeed.host_run) == 3
            assert outfeed.upkeep(session, flush=True) == (3, 3)
            files = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
            assert len(files) == 1
            events = list(tf.compat.v1.train.summary_iterator(files[0]))
            assert outfeed.upkeep(session, close=True) == (3, 3)
            with pytest.raises(tf.errors.OutOfRangeError):
                session.run(outfeed.host_run)
    kinds = [("start", e.step) if e.HasField("session_log") else
             ("x", e.step, float(tf.make_ndarray(e.summary.value[0].tensor)))
             for e in events if e.HasField("session_log") or e.HasField("summary")]
    assert kinds == [("start", 3), ("x", 3, 30.0), ("x", 4, 40.0), ("x", 5, 50.0)]
