"""The spec page's example, run as written after ``from npu_bridge.npu_init import *``."""

import glob
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    from npu_bridge.npu_init import *

    LOGDIR = sys.argv[1]

    def _host_call_fn(global_step, loss):
        with tf.compat.v2.summary.create_file_writer(LOGDIR).as_default():
            with tf.compat.v2.summary.record_if(True):
                tf.compat.v2.summary.scalar("loss", loss, step=global_step)
                return tf.compat.v1.summary.all_v2_summary_ops()

    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features, 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        global_step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
        # --- as on the spec page ---
        host_call = (_host_call_fn, [global_step, loss])
        return NPUEstimatorSpec(mode=tf.estimator.ModeKeys.TRAIN, loss=loss, train_op=train_op, host_call=host_call)

    def input_fn():
        x = np.random.RandomState(0).rand(80, 3).astype("float32")
        y = x.sum(axis=1, keepdims=True)
        return tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()

    estimator = NPUEstimator(model_fn=model_fn, config=NPURunConfig(
        model_dir=sys.argv[2], iterations_per_loop=5))
    estimator.train(input_fn, steps=12)
    print("global_step", estimator.get_variable_value("global_step"))
''')


@pytest.mark.parametrize("tf1_behaviour", [False, True])
def test_seed_example_runs_as_written(tmp_path, tf1_behaviour):
    """Also under tf.compat.v1.disable_v2_behavior(), as many migrated TF1 scripts run."""
    script = tmp_path / "seed_example.py"
    text = SCRIPT
    if tf1_behaviour:
        text = text.replace("from npu_bridge.npu_init import *",
                            "from npu_bridge.npu_init import *\ntf.compat.v1.disable_v2_behavior()")
    script.write_text(text)
    logdir, model_dir = tmp_path / "host", tmp_path / "model"
    run = subprocess.run([sys.executable, str(script), str(logdir), str(model_dir)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "global_step 12" in run.stdout
    from conftest import read_scalars
    records = read_scalars(str(logdir), "loss")
    assert sorted(records) == list(range(1, 13))
    assert all(len(v) == 1 and v[0] > 0 for v in records.values())
    assert glob.glob(os.path.join(model_dir, "model.ckpt-12.index"))
