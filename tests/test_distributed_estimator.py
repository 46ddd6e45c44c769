"""NPUEstimator train / evaluate / train_and_evaluate as two ranks vs one process."""
import numpy as np
import pytest

from distributed_util import launch, single_reference

pytestmark = pytest.mark.timeout(150)


def _load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _eval_loss(out, rank):
    for line in out.splitlines():
        if ("EVAL rank=%d " % rank) in line and "TAE" not in line:
            return float(line.rsplit("loss=", 1)[1])
    raise AssertionError(out)


def test_estimator_two_ranks_match_one_process(tmp_path):
    rc, out = launch(2, "train_estimator.py", tmp_path / "d", tmp_path / "md", timeout=120)
    assert rc == 0 and out.count("ESTIMATOR_OK") == 2, out
    assert "TAE_EVAL rank=0 step=18" in out, out
    rc1, out1, single_prefix = single_reference("train_estimator.py", "OUT", "DIR")
    assert rc1 == 0 and "ESTIMATOR_OK" in out1, out1
    for phase in ("train", "tae"):
        r0 = _load(tmp_path / ("d.%s.rank0.npz" % phase))
        r1 = _load(tmp_path / ("d.%s.rank1.npz" % phase))
        single = _load("%s.%s.rank0.npz" % (single_prefix, phase))
        assert sorted(r0) == sorted(r1) == sorted(single)
        for name in r0:
            assert np.array_equal(r0[name], r1[name]), (phase, name)
            np.testing.assert_allclose(r0[name], single[name], atol=1e-5, rtol=0,
                                       err_msg="%s %s" % (phase, name))
    # each rank evaluates its own shard of the checkpoint rank 0 wrote
    mean = (_eval_loss(out, 0) + _eval_loss(out, 1)) / 2
    assert abs(mean - _eval_loss(out1, 0)) < 1e-4
    # host_call ran on rank 0 only, once per step of train (1-12) and train_and_evaluate (13-18)
    from conftest import read_scalars
    assert sorted(read_scalars(str(tmp_path / "md" / "host_rank0"), "loss")) == list(range(1, 19))
    assert not (tmp_path / "md" / "host_rank1").exists()
    saved = sorted(p.name for p in (tmp_path / "md").glob("model.ckpt-*.index"))
    assert saved == ["model.ckpt-0.index", "model.ckpt-12.index", "model.ckpt-18.index",
                     "model.ckpt-6.index"], saved
