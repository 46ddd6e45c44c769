"""Two ranks agree on skipping a step that overflowed on one of them only."""
import re

import pytest

from distributed_util import launch

pytestmark = pytest.mark.timeout(150)


def test_overflow_on_one_rank_is_skipped_on_both(tmp_path):
    rc, out = launch(2, "train_loss_scale.py", tmp_path / "md", timeout=120)
    assert rc == 0, out
    reports = {int(r): (float(s), int(g), int(a)) for r, s, g, a in re.findall(
        r"REPORT rank=(\d) scale=([0-9.e+]+) step=(\d+) attempts=(\d+)", out)}
    assert sorted(reports) == [0, 1], out
    # One skipped attempt on both ranks: 7 attempts for 6 steps, scale halved once.
    assert reports[0] == reports[1] == (512.0, 6, 7), reports
