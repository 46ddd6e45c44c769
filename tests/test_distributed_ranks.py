"""Two real ranks on 127.0.0.1: collectives against numpy, training against one process."""
import numpy as np
import pytest

from distributed_util import launch, run_single

pytestmark = pytest.mark.timeout(150)


def _ok(rc, out, marker, n=2):
    assert rc == 0, out
    assert out.count(marker) == n, out


def test_hccl_ops_match_numpy():
    rc, out = launch(2, "hccl_check.py")
    _ok(rc, out, "HCCL_OK")


def test_collectives_repeat_inside_while_v2_loop():
    rc, out = launch(2, "loop_check.py")
    _ok(rc, out, "LOOP_OK")


def _load(prefix, rank):
    with np.load("%s.rank%d.npz" % (prefix, rank)) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("args", [["--api", "minimize"],
                                  ["--api", "compute_apply", "--loop", "4"]],
                         ids=["minimize", "compute_apply_in_while_loop"])
def test_two_ranks_match_one_process(tmp_path, args):
    rc, out = launch(2, "train_session.py", tmp_path / "dist", *args)
    _ok(rc, out, "TRAIN_OK")
    rc, out = run_single("train_session.py", tmp_path / "single", *args)
    _ok(rc, out, "TRAIN_OK", 1)
    r0, r1, single = (_load(tmp_path / "dist", 0), _load(tmp_path / "dist", 1),
                      _load(tmp_path / "single", 0))
    assert sorted(r0) == sorted(r1) == sorted(single)
    assert r0["global_step"] == 12
    for name in r0:
        assert np.array_equal(r0[name], r1[name]), name  # bitwise equal ranks
        np.testing.assert_allclose(r0[name], single[name], atol=1e-5, rtol=0, err_msg=name)


def test_without_broadcast_ranks_diverge(tmp_path):
    """The seeds really differ: the broadcast hook is what aligns the ranks."""
    rc, out = launch(2, "train_session.py", tmp_path / "nb", "--no-broadcast", "--steps", "2")
    _ok(rc, out, "TRAIN_OK")
    assert not np.array_equal(_load(tmp_path / "nb", 0)["model.w1"],
                              _load(tmp_path / "nb", 1)["model.w1"])
