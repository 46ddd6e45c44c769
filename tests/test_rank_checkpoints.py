"""Ranks and model_dirs: each rank's own model_dir has its checkpoints, a shared one is written
once, and sharded Adam slots are in the checkpoints under their unsharded names (resumed
exactly, on 2, 1 or 4 ranks)."""

import glob
import os
import re
import shutil

import numpy as np
import pytest
import tensorflow as tf

from distributed_util import launch, run_single

pytestmark = pytest.mark.timeout(400)

VARIABLES = ["h.kernel", "h.bias", "out.kernel", "out.bias"]
SLOTS = [v + s for v in VARIABLES for s in (".Adam", ".Adam_1")] + ["beta1_power", "beta2_power"]


def _load(work, phase, rank):
    with np.load(os.path.join(work, "%s.rank%d.npz" % (phase, rank))) as z:
        return {k: z[k] for k in z.files}


def _steps(model_dir):
    return sorted(int(re.search(r"ckpt-(\d+)\.index$", p).group(1))
                  for p in glob.glob(os.path.join(model_dir, "model.ckpt-*.index")))


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    """The 2-rank run of tests/ranks/checkpoint_dirs.py: (work folder, its output)."""
    work = str(tmp_path_factory.mktemp("rank_checkpoints"))
    rc, out = launch(2, "checkpoint_dirs.py", work, "ranks", timeout=300)
    assert rc == 0 and out.count("RANKS_OK") == 2, out
    return work, out


def test_each_rank_with_its_own_model_dir_keeps_checkpoints_equal_to_rank_0s(two_ranks):
    work, out = two_ranks
    for rank in (0, 1):
        # evaluate() and predict() after train() worked on both ranks, from their own folder
        assert re.search(r"OWN rank=%d step=6 loss=[0-9.]+ predicted=4" % rank, out), out
        assert _steps(os.path.join(work, "own", "r%d" % rank)) == [0, 3, 6]
    r0, r1 = _load(work, "own", 0), _load(work, "own", 1)
    assert sorted(r0) == sorted(VARIABLES + SLOTS)  # get_variable_value, slots included
    for name in r0:
        assert np.array_equal(r0[name], r1[name]), name
    # The start-of-training checkpoint too holds rank 0's values (broadcast before saving).
    for name in ("h/kernel", "out/bias"):
        assert np.array_equal(
            tf.train.load_variable(os.path.join(work, "own", "r0", "model.ckpt-0"), name),
            tf.train.load_variable(os.path.join(work, "own", "r1", "model.ckpt-0"), name))


def test_ranks_sharing_a_model_dir_write_it_once(two_ranks):
    work, out = two_ranks
    shared = os.path.join(work, "shared")
    assert "SHARED rank=1 step=6" in out  # rank 1 evaluated rank 0's checkpoint
    assert _steps(shared) == [0, 4, 6, 9]
    assert len(glob.glob(os.path.join(shared, "events.out.tfevents.*"))) == 1  # one writer
    # rank 1 took part in no write: no markers left, one lock file, held last by rank 0
    assert os.listdir(os.path.join(shared, ".npu_bridge")) == ["train.lock"]
    r0, r1 = _load(work, "shared", 0), _load(work, "shared", 1)
    for name in r0:
        assert np.array_equal(r0[name], r1[name]), name


def test_sharded_adam_stopped_and_resumed_equals_uninterrupted(two_ranks):
    work, _ = two_ranks
    resumed, uninterrupted = _load(work, "own", 0), _load(work, "shared", 0)  # 3 + 3 vs 6 steps
    for name in VARIABLES + SLOTS:
        np.testing.assert_allclose(resumed[name], uninterrupted[name], atol=1e-6, rtol=0,
                                   err_msg=name)
    # the checkpoint is the one unsharded training writes: every slot under its own name
    saved = dict(tf.train.list_variables(os.path.join(work, "shared", "model.ckpt-6")))
    assert sorted(saved) == sorted(["global_step"] + [n.replace(".", "/")
                                                      for n in VARIABLES + SLOTS])
    assert saved["h/kernel/Adam"] == saved["h/kernel"] == [4, 6]


@pytest.mark.parametrize("ranks", [1, 4])
def test_a_two_rank_sharded_checkpoint_resumes_on_another_rank_count(two_ranks, ranks):
    work, _ = two_ranks
    shutil.copytree(os.path.join(work, "resume"), os.path.join(work, "resume%d" % ranks))
    if ranks == 1:
        rc, out = run_single("checkpoint_dirs.py", work, "resume", timeout=120)
    else:
        rc, out = launch(ranks, "checkpoint_dirs.py", work, "resume", timeout=200)
    assert rc == 0 and out.count("RESUME_OK") == ranks, out
    continued = _load(work, "shared9", 0)  # the 2 ranks going on from step 6 to 9
    for rank in range(ranks):
        got = _load(work, "resume%d" % ranks, rank)
        for name in VARIABLES:
            np.testing.assert_allclose(got[name], continued[name], atol=1e-6, rtol=0,
                                       err_msg="rank %d %s" % (rank, name))
