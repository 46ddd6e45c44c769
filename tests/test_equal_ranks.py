"""Two ranks end bitwise equal: a super-resolution-shaped net in float32 and bfloat16
mixed precision, at iterations_per_loop 1 and 5, each trained twice from scratch."""
import glob
import re

import numpy as np
import pytest
import tensorflow as tf

from distributed_util import launch
from npu_bridge.mixed_precision.precision_mode import detect_hardware

pytestmark = pytest.mark.timeout(420)

FUSIONS_OFF = "Grappler's op fusions (remapper) are off in rank sessions"


def _load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _per_rank_state(name):
    return "moving_mean" in name or "moving_variance" in name


def _max_difference(a, b):
    return max(float(np.max(np.abs(a[k].astype(np.float64) - b[k]))) for k in a
               if a[k].dtype.kind == "f")


def test_ranks_end_bitwise_equal_in_float32_and_mixed_precision(tmp_path):
    rc, out = launch(2, "equal_ranks.py", tmp_path / "d", tmp_path / "w", timeout=400)
    assert rc == 0 and out.count("EQUAL_RANKS_DONE") == 2, out
    tags = sorted({p.rsplit(".rank", 1)[0] for p in glob.glob(str(tmp_path / "d.*.npz"))})
    assert len(tags) == 8, tags  # 2 precisions x 2 loop sizes x 2 repeats
    for tag in tags:
        rank0, rank1 = _load(tag + ".rank0.npz"), _load(tag + ".rank1.npz")
        assert sorted(rank0) == sorted(rank1)
        shared = [k for k in rank0 if not _per_rank_state(k)]
        assert "upscale.kernel" in shared and "loss_scale_manager.loss_scale" in shared
        for name in shared:  # weights, momentum slots, loss scale, global step
            assert np.array_equal(rank0[name], rank1[name]), (tag, name)
        assert rank0["global_step"] == 7
        # batch norm's moving statistics come from each rank's own batches
        assert any(not np.array_equal(rank0[k], rank1[k]) for k in rank0 if _per_rank_state(k))

    def final(precision, loop, repeat=0):
        return _load(str(tmp_path / ("d.%s.n%d.%d.rank0.npz" % (precision, loop, repeat))))
    for precision in ("float32", "allow_mix_precision"):
        for loop in (1, 5):  # the same training twice gives the same bits
            a, b = final(precision, loop), final(precision, loop, 1)
            assert all(np.array_equal(a[k], b[k]) for k in a), (precision, loop)
        assert _max_difference(final(precision, 1), final(precision, 5)) <= 1e-6, precision
    mixed_moved = _max_difference(final("float32", 1), final("allow_mix_precision", 1))
    if detect_hardware() == "cpu_bf16":  # bfloat16 really ran, with its rounding
        assert mixed_moved > 1e-4
        assert out.count(FUSIONS_OFF) == 2, out  # once per rank
    else:
        assert mixed_moved == 0.0

    assert out.count("COLLECTIVES_OK") == 2, out  # all-reduce and broadcast, bfloat16 and float32
    # Checkpoints hold rank 0's state; every rank evaluates that checkpoint.
    reader = tf.train.load_checkpoint(str(tmp_path / "w" / "allow_mix_precision.n5.1"))
    rank0 = final("allow_mix_precision", 5, 1)
    for name in ("block0_bn/moving_mean", "block1_bn/moving_variance", "head/kernel"):
        assert np.array_equal(reader.get_tensor(name), rank0[name.replace("/", ".")]), name
    evals = dict(re.findall(r"EVAL rank=(\d) (psnr=\S+ loss=\S+)", out))
    assert len(evals) == 2 and evals["0"] == evals["1"], out
    assert "EVAL_ALONE rank=0 step=7" in out, out
