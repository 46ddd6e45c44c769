"""Migration-tool wrappers on two real ranks: averaged gradients, equal Keras weights."""
import numpy as np
import pytest

from distributed_util import launch


@pytest.mark.timeout(150)
def test_wrappers_average_gradients_and_keras_callback_aligns_weights(tmp_path):
    rc, out = launch(2, "wrappers_check.py", tmp_path / "keras", timeout=120)
    assert rc == 0, out
    assert out.count("GRADS_OK") == 2 and out.count("KERAS_OK") == 2, out
    with np.load(str(tmp_path / "keras.rank0.npz")) as r0, \
            np.load(str(tmp_path / "keras.rank1.npz")) as r1:
        assert sorted(r0.files) == sorted(r1.files) and len(r0.files) == 4
        for name in r0.files:
            np.testing.assert_array_equal(r0[name], r1[name], err_msg=name)


@pytest.mark.timeout(150)
def test_plain_estimator_with_npu_run_config_init_exports_once(tmp_path):
    model_dir = tmp_path / "model"
    rc, out = launch(2, "plain_estimator_export.py", model_dir, timeout=120)
    assert rc == 0, out
    assert "EXPORT_OK rank=0 own_dir=1 exports=1" in out, out
    assert "EXPORT_OK rank=1 own_dir=0 exports=1" in out, out  # in a directory of its own
    assert len(list((model_dir / "export" / "final").iterdir())) == 1
    weights = {line.split("w=")[1] for line in out.splitlines() if "EXPORT_OK" in line}
    assert len(weights) == 1, out  # both ranks trained the same model


@pytest.mark.timeout(150)
def test_eager_keras_fit_on_two_ranks_ends_equal_and_matches_one_process(tmp_path):
    """TF2 eager ``model.fit`` with each wrapper and the broadcast callback (no graph mode)."""
    from distributed_util import single_reference
    rc, out = launch(2, "keras_eager.py", tmp_path / "k", timeout=120)
    assert rc == 0 and out.count("KERAS_EAGER_OK") == 6, out
    rc1, out1, single = single_reference("keras_eager.py", "OUT", timeout=90)
    assert rc1 == 0 and out1.count("KERAS_EAGER_OK") == 3, out1
    for name in ("npu_keras_optimizer", "KerasDistributeOptimizer",
                 "npu_distributed_optimizer_wrapper"):
        with np.load(str(tmp_path / ("k.%s.rank0.npz" % name))) as r0, \
                np.load(str(tmp_path / ("k.%s.rank1.npz" % name))) as r1, \
                np.load("%s.%s.rank0.npz" % (single, name)) as one:
            assert sorted(r0.files) == sorted(r1.files) == sorted(one.files)
            assert len(r0.files) >= 5  # 4 weights, then the optimizer's variables
            for key in r0.files:  # weights and optimizer state (Adam's slots, iterations)
                np.testing.assert_array_equal(r0[key], r1[key], err_msg="%s %s" % (name, key))
                np.testing.assert_allclose(r0[key], one[key], rtol=0, atol=1e-5,
                                           err_msg="%s %s" % (name, key))
