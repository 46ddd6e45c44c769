"""Weight-update sharding: owners balanced, and 2 sharded ranks equal one unsharded process."""
import numpy as np
import pytest
import tensorflow as tf

from distributed_util import launch, run_single
from npu_bridge.distributed.weight_sharding import assign_owners


def test_owners_balance_element_counts():
    with tf.Graph().as_default():
        shapes = [[5, 8], [8], [8, 1], [100], [3, 3]]
        variables = [tf.compat.v1.get_variable("v%d" % i, s) for i, s in enumerate(shapes)]
        assert assign_owners(variables, 1) == [0] * 5
        assert assign_owners(variables, 2) == [1, 1, 1, 0, 1]  # 100 | 40+9+8+8
        assert assign_owners(variables, 3) == [1, 2, 2, 0, 2]  # 100 | 40 | 9+8+8
        with pytest.raises(ValueError, match="rank_size must be >= 1, got 0"):
            assign_owners(variables, 0)


def _load(prefix, rank):
    with np.load("%s.rank%d.npz" % (prefix, rank)) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.timeout(200)
@pytest.mark.parametrize("optimizer", ["adam", "momentum"])
def test_sharded_ranks_equal_unsharded_process(tmp_path, optimizer):
    args = ["--optimizer", optimizer, "--api", "compute_apply", "--loop", "3", "--sharded"]
    rc, out = launch(2, "train_session.py", tmp_path / "d", *args, timeout=120)
    assert rc == 0 and out.count("TRAIN_OK") == 2, out
    rc, single_out = run_single("train_session.py", tmp_path / "s", *args[:-1])
    assert rc == 0 and "TRAIN_OK" in single_out, single_out
    # slots live once across ranks: w1 (40 elements) on rank 0, b1 and w2 (8 + 8) on rank 1
    assert "SLOTS rank=0 vars=model/w1" in out, out
    assert "SLOTS rank=1 vars=model/b1,model/w2" in out, out
    r0, r1, single = _load(tmp_path / "d", 0), _load(tmp_path / "d", 1), _load(tmp_path / "s", 0)
    names = ["global_step", "model.b1", "model.w1", "model.w2"]
    assert sorted(r0) == sorted(r1) == names  # slots are rank-local, not global variables
    assert int(r0["global_step"]) == 12
    for name in names:
        assert np.array_equal(r0[name], r1[name]), name
        np.testing.assert_allclose(r0[name], single[name], atol=1e-5, rtol=0, err_msg=name)
