"""oneDNN's CPU kernels: chosen by npu_init (imported first), npu-bridge-run and the launcher's ranks.

TensorFlow reports whether its oneDNN kernels are on
(``tf_private.platform.onednn_enabled``); each case runs in a fresh
interpreter, since the choice is made once, when TensorFlow's library loads.
"""

import os
import subprocess
import sys

import pytest

from npu_bridge import launch
from npu_bridge.common import onednn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = ("import os; from npu_bridge.tf_private.platform import onednn_enabled; "
          "print('ONEDNN', onednn_enabled(), os.environ.get('TF_ENABLE_ONEDNN_OPTS'))")


def _run(args, setting=None, timeout=120):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(onednn.ENV, None)
    if setting is not None:
        env[onednn.ENV] = setting
    out = subprocess.run([sys.executable] + args, env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-3000:]
    line = next(l for l in out.stdout.splitlines() if l.startswith("ONEDNN "))
    return line.split()[1:]


def test_prefer_onednn_sets_only_an_unset_variable():
    environ = {}
    assert onednn.prefer_onednn(environ) is True
    assert environ == {onednn.ENV: "1"}
    for setting in ("0", "1", ""):
        environ = {onednn.ENV: setting}
        assert onednn.prefer_onednn(environ) is False
        assert environ == {onednn.ENV: setting}


def test_launcher_ranks_get_onednn_unless_the_user_chose():
    hosts = ["127.0.0.1:1", "127.0.0.1:2"]
    assert launch.rank_env({}, 0, hosts)[onednn.ENV] == "1"
    assert launch.rank_env({onednn.ENV: "0"}, 1, hosts)[onednn.ENV] == "0"


@pytest.mark.parametrize("setting, expected", [(None, ["True", "1"]), ("0", ["False", "0"])])
def test_npu_init_imported_first_chooses_onednn_unless_set(setting, expected):
    code = "from npu_bridge.npu_init import *; " + REPORT
    assert _run(["-c", code], setting) == expected


def test_npu_init_after_tensorflow_changes_nothing():
    code = "import tensorflow; from npu_bridge.npu_init import *; " + REPORT
    assert _run(["-c", code]) == ["False", "None"]


def test_npu_bridge_run_chooses_onednn_before_the_script_loads_tensorflow():
    assert _run(["-m", "npu_bridge.run", "-c", REPORT]) == ["True", "1"]
