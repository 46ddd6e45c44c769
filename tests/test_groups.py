"""Process groups (hccl.manage.api) on four real ranks, and their argument checks in one process."""
import pytest

from distributed_util import launch

from hccl.manage.api import create_group, destroy_group, get_rank_size


@pytest.mark.timeout(150)
def test_two_groups_on_four_ranks_each_reduce_their_own_sum():
    rc, out = launch(4, "groups_check.py", timeout=120)
    assert rc == 0, out
    assert out.count("GROUPS_OK") == 4, out
    assert out.count("group=pair0 sum=11") == 2 and out.count("group=pair1 sum=1100") == 2, out


def test_group_arguments_are_checked_single_process():
    with pytest.raises(ValueError, match="rank_num=2 but rank_ids has 1"):
        create_group("g", 2, [0])
    with pytest.raises(ValueError, match=r"distinct ranks in \[0, 1\)"):
        create_group("g", 1, [3])
    with pytest.raises(ValueError, match="world group"):
        create_group("hccl_world_group", 1, [0])
    create_group("solo", 1, [0])
    assert get_rank_size("solo") == 1
    with pytest.raises(ValueError, match="already exists"):
        create_group("solo", 1, [0])
    destroy_group("solo")
    with pytest.raises(ValueError, match="does not exist"):
        get_rank_size("solo")
