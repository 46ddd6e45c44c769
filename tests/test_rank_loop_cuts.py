"""Ranks cut their device-loop runs alike, also where only rank 0 saves checkpoints.

With iterations_per_loop=4 and save_checkpoints_steps=6, rank 0's runs end at
the checkpoint steps (4, 2, 4, 2 steps); a rank that saves nothing must make
the same runs, or its collectives pair with the wrong run's and the job hangs.
"""
import numpy as np
import pytest

from distributed_util import launch


@pytest.mark.timeout(150)
def test_ranks_make_the_same_runs_when_checkpoints_cut_the_loop(tmp_path, monkeypatch):
    monkeypatch.setenv("NPU_BRIDGE_RANK_TIMEOUT", "60")  # a hang fails the job in time
    rc, out = launch(2, "train_estimator.py", tmp_path / "d", tmp_path / "md", "--loop", 4,
                     timeout=130)
    assert rc == 0 and out.count("ESTIMATOR_OK") == 2, out[-3000:]
    assert "TAE_EVAL rank=0 step=18" in out, out[-3000:]
    for phase in ("train", "tae"):
        with np.load(tmp_path / ("d.%s.rank0.npz" % phase)) as r0, \
                np.load(tmp_path / ("d.%s.rank1.npz" % phase)) as r1:
            assert sorted(r0.files) == sorted(r1.files)
            for name in r0.files:
                assert np.array_equal(r0[name], r1[name]), (phase, name)
    saved = sorted(int(p.name.split("-")[1].split(".")[0])
                   for p in (tmp_path / "md").glob("model.ckpt-*.index"))
    assert saved == [0, 6, 12, 18], saved
