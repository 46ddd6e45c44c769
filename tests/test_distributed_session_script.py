"""Migrated plain-Session scripts (default session target) as two ranks vs one process."""
import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.client import session as tf_session

from distributed_util import launch, single_reference
from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.sessions import session_target

LOG = "sessions with the default target now run on this rank's tf.distribute.Server"


def _load(prefix, rank):
    with np.load("%s.rank%d.npz" % (prefix, rank)) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.timeout(150)
@pytest.mark.parametrize("mode", ["mts", "session"])
def test_plain_session_script_two_ranks_match_one_process(tmp_path, mode):
    rc, out = launch(2, "plain_session_script.py", tmp_path / "d", mode, timeout=100)
    assert rc == 0 and out.count("SCRIPT_OK") == 2, out
    assert out.count(LOG) == 2, out  # once per rank, however many sessions
    rc, out, single_prefix = single_reference("plain_session_script.py", "OUT", mode)
    assert rc == 0 and "SCRIPT_OK" in out and LOG not in out, out
    r0, r1, single = _load(tmp_path / "d", 0), _load(tmp_path / "d", 1), _load(single_prefix, 0)
    assert sorted(r0) == sorted(r1) == sorted(single)
    assert r0["global_step"] == 10
    for name in r0:
        assert np.array_equal(r0[name], r1[name]), name
        np.testing.assert_allclose(r0[name], single[name], atol=1e-5, rtol=0, err_msg=name)


@pytest.fixture
def restore_session_init():
    original = tf_session.BaseSession.__init__
    yield
    session_target.uninstall()
    assert tf_session.BaseSession.__init__ is original


def test_single_process_leaves_sessions_alone(monkeypatch, restore_session_init):
    monkeypatch.delenv("RANK_SIZE", raising=False)
    original = tf_session.BaseSession.__init__
    assert session_target.install() is False
    monkeypatch.setenv("RANK_SIZE", "1")
    assert session_target.install() is False
    assert tf_session.BaseSession.__init__ is original


@pytest.mark.timeout(30)
def test_bad_layout_fails_fast_naming_rank_size(monkeypatch, restore_session_init):
    monkeypatch.setenv("RANK_SIZE", "2")
    for name in ("RANK_ID", "NPU_BRIDGE_HOSTS", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    assert session_target.install() is True
    patched = tf_session.BaseSession.__init__
    assert session_target.install() is True and tf_session.BaseSession.__init__ is patched
    with tf.Graph().as_default():
        with pytest.raises(RuntimeError, match=r"RANK_SIZE=2.*npu_bridge\.launch"):
            tf.compat.v1.Session()
    assert runtime._server is None  # pylint: disable=protected-access
