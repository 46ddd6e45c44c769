"""Weight-update sharding: owners balanced, and 2 sharded ranks equal one unsharded process."""
import numpy as np
import pytest
import tensorflow as tf

from distributed_util import launch, run_single
from npu_bridge.distributed.optimizers.weight_sharding import assign_owners


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
def test_sharded_ranks_equal_unsharded_process_adam_and_momentum(tmp_path):
    args = ["--optimizer", "adam,momentum", "--api", "compute_apply", "--loop", "3"]
    rc, out = launch(2, "train_session.py", tmp_path / "d", *args, "--sharded", timeout=150)
    assert rc == 0 and out.count("TRAIN_OK") == 4, out
    rc, single_out = run_single("train_session.py", tmp_path / "s", *args, timeout=90)
    assert rc == 0 and single_out.count("TRAIN_OK") == 2, single_out
    for optimizer in ("adam", "momentum"):
        # slots live once across ranks: w1 (40 elements) on rank 0, b1 and w2 (8 + 8) on rank 1
        assert "SLOTS %s rank=0 vars=model/w1\n" % optimizer in out, out
        assert "SLOTS %s rank=1 vars=model/b1,model/w2\n" % optimizer in out, out
        r0, r1, single = (_load(tmp_path / ("d." + optimizer), 0),
                          _load(tmp_path / ("d." + optimizer), 1),
                          _load(tmp_path / ("s." + optimizer), 0))
        names = ["global_step", "model.b1", "model.w1", "model.w2"]
        assert sorted(r0) == sorted(r1) == names  # slots are rank-local, not global variables
        assert len(single) > len(names)  # the unsharded reference has its slots as globals
        assert int(r0["global_step"]) == 12
        for name in names:
            assert np.array_equal(r0[name], r1[name]), (optimizer, name)
            np.testing.assert_allclose(r0[name], single[name], atol=1e-5, rtol=0,
                                       err_msg="%s %s" % (optimizer, name))
