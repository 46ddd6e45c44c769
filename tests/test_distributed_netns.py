"""Two ranks on two "machines": each in its own network namespace with its own address.

Started as cluster launchers start them (environment only): the NPUEstimator
script as a Slurm step (compressed node list ``10.211.0.[1-2]``), the migrated
plain-Session script as an Open MPI job (``OMPI_COMM_WORLD_*`` plus
NPU_BRIDGE_NODES).  Same checks as the 127.0.0.1 tests: ranks bitwise equal,
equal to one process within 1e-5.  Skipped where namespaces cannot be made.
"""
import numpy as np
import pytest

import netns_util
from distributed_util import run_ranks, single_reference

REASON = netns_util.unavailable_reason()
pytestmark = [pytest.mark.skipif(REASON is not None, reason=str(REASON)),
              pytest.mark.timeout(300)]


def _load(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _assert_ranks_match_single(rank_files, single_file):
    r0, r1, single = (_load(f) for f in rank_files + [single_file])
    assert sorted(r0) == sorted(r1) == sorted(single)
    for name in r0:
        assert np.array_equal(r0[name], r1[name]), name
        np.testing.assert_allclose(r0[name], single[name], atol=1e-5, rtol=0, err_msg=name)


def _ok(results, marker):
    for rc, out in results:
        assert rc == 0 and marker in out, out


def test_estimator_and_session_script_across_namespaces(tmp_path):
    with netns_util.private_network(2) as ranks:
        nodes = "%s.[1-2]" % netns_util.SUBNET
        slurm = [{"SLURM_PROCID": str(i), "SLURM_LOCALID": "0", "SLURM_STEP_NUM_TASKS": "2",
                  "SLURM_STEP_NODELIST": nodes, "SLURM_STEP_TASKS_PER_NODE": "1(x2)"}
                 for i in range(2)]
        results = _run_in_namespaces(ranks, slurm, "train_estimator.py",
                                     tmp_path / "d", tmp_path / "md")
        _ok(results, "ESTIMATOR_OK")
        assert "from Slurm (SLURM_PROCID); hosts 10.211.0.1:24600,10.211.0.2:24600" \
            in results[1][1], results[1][1]

        mpi = [{"OMPI_COMM_WORLD_RANK": str(i), "OMPI_COMM_WORLD_SIZE": "2",
                "OMPI_COMM_WORLD_LOCAL_RANK": "0", "OMPI_COMM_WORLD_LOCAL_SIZE": "1",
                "NPU_BRIDGE_NODES": "10.211.0.1,10.211.0.2"} for i in range(2)]
        before = [netns_util.rx_bytes(ns) for ns, _ in ranks]
        results = _run_in_namespaces(ranks, mpi, "plain_session_script.py",
                                     tmp_path / "p", "mts")
        _ok(results, "SCRIPT_OK")
        assert "from Open MPI (OMPI_COMM_WORLD_SIZE)" in results[0][1], results[0][1]
        received = [netns_util.rx_bytes(ns) - b for (ns, _), b in zip(ranks, before)]
        assert min(received) > 10000, received  # the ranks really talked over eth0

    rc, out, single = single_reference("train_estimator.py", "OUT", "DIR")
    assert rc == 0 and "ESTIMATOR_OK" in out, out
    for phase in ("train", "tae"):
        _assert_ranks_match_single(
            [tmp_path / ("d.%s.rank%d.npz" % (phase, r)) for r in range(2)],
            "%s.%s.rank0.npz" % (single, phase))
    rc, out, single = single_reference("plain_session_script.py", "OUT", "mts")
    assert rc == 0 and "SCRIPT_OK" in out, out
    _assert_ranks_match_single([tmp_path / ("p.rank%d.npz" % r) for r in range(2)],
                               "%s.rank0.npz" % single)


def _run_in_namespaces(ranks, envs, script, *args):
    prefixes = [("ip", "netns", "exec", ns) for ns, _ in ranks]
    return run_ranks(envs, script, *args, prefixes=prefixes, timeout=150)
