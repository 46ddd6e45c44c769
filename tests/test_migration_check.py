"""npu-bridge-check on files with known gaps: exact findings, exit codes, --json."""
import io
import json
import os

import pytest

from distributed_util import ROOT
from tf1_util import run_python
from npu_bridge.migration_check import check_paths
from npu_bridge.migration_check import provided
from npu_bridge.migration_check.cli import main

SAMPLES = os.path.join(ROOT, "tests", "migration_samples")
GAPS = os.path.join(SAMPLES, "gaps_estimator.py")
CLEAN = os.path.join(SAMPLES, "clean_session.py")


def _run(*argv):
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_known_gaps_are_listed_with_file_line_and_kind():
    findings = [(f.line, f.col, f.kind, f.name, f.missing) for f in check_paths([GAPS])]
    hccl = [f for f in findings if f[3] == "hccl.not_a_module.api.get_rank_size"]
    assert len(hccl) == 1 and hccl[0][4] in ("hccl", "hccl.not_a_module")  # no hccl / no submodule
    assert [f for f in findings if f not in hccl] == [
        (5, 1, "tf.contrib", "tensorflow.contrib.lite.TFLiteConverter", "tensorflow.contrib.lite"),
        (7, 1, "npu_bridge", "npu_bridge.estimator.npu.npu_config.NoSuchConfig",
         "npu_bridge.estimator.npu.npu_config.NoSuchConfig"),
        (14, 12, "tf.contrib", "tf.contrib.rnn.NASCell", "tensorflow.contrib.rnn.NASCell"),
        (16, 11, "npu_bridge", "npu_tf_optimizer_that_does_not_exist",
         "npu_bridge.npu_init.npu_tf_optimizer_that_does_not_exist"),
        (19, 5, "tf.contrib", "tf.contrib.summary.create_db_writer",
         "tensorflow.contrib.summary.create_db_writer"),
        (20, 9, "tensorflow", "tf.no_such_tf1_function", "tensorflow.no_such_tf1_function"),
    ]


def test_text_output_and_exit_codes():
    code, text = _run(GAPS)
    assert code == 1
    lines = text.splitlines()
    assert lines[0] == ("%s:5:1: tf.contrib: tensorflow.contrib.lite is not provided by "
                        "npu_bridge's TF1 mode" % GAPS)
    assert "%s:20:9: tensorflow: tensorflow.no_such_tf1_function is not in the TF1 API" % GAPS \
        in text
    assert lines[-1] == "1 file(s) checked, 7 name(s) not provided"
    assert _run(CLEAN) == (0, "1 file(s) checked, 0 name(s) not provided\n")


def test_json_output():
    code, text = _run("--json", SAMPLES)
    assert code == 1
    report = json.loads(text)
    assert report["files"] == 2 and report["missing"] == 7
    first = report["findings"][0]
    assert first == {"path": GAPS, "line": 5, "col": 1, "kind": "tf.contrib",
                     "name": "tensorflow.contrib.lite.TFLiteConverter",
                     "missing": "tensorflow.contrib.lite",
                     "message": "tensorflow.contrib.lite is not provided by npu_bridge's TF1 mode"}
    assert {f["path"] for f in report["findings"]} == {GAPS}


def test_unparsable_file_and_no_files(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow as tf\ndef f(:\n")
    code, text = _run(str(broken))
    assert code == 2 and "%s:2:0: error: cannot read or parse" % broken in text
    assert _run(str(tmp_path / "empty_dir_does_not_exist"))[0] == 2


def test_the_tf1_mode_test_scripts_miss_only_what_they_use_on_purpose():
    # The scripts the TF1-mode tests run; main_script.py asks for two missing names on purpose.
    # contrib_and_internals.py uses contrib's internal paths and TF-internal names that the
    # TF1 mode only provides once switched on, which this checker does not do.
    findings = [f for f in check_paths([os.path.join(ROOT, "tests", "tf1_scripts")])
                if not f.path.endswith("contrib_and_internals.py")]
    main_script = os.path.join(ROOT, "tests", "tf1_scripts", "pkg_layout", "main_script.py")
    removed = os.path.join(ROOT, "tests", "tf1_scripts", "removed_modules.py")
    assert [(f.path, f.line, f.missing) for f in findings] == [
        (removed, 19, "tensorflow.examples"), (removed, 51, "tensorflow.examples"),
        (removed, 61, "tensorflow.examples"), (removed, 65, "tensorflow.examples"),
        (main_script, 28, "tensorflow.contrib.lite"),
        (main_script, 67, "tensorflow.contrib.lite")]


def test_names_added_to_npu_bridge_are_picked_up_without_a_list(monkeypatch):
    import npu_bridge.npu_init as npu_init
    provided._missing_cache.clear()
    assert any(f.name == "npu_tf_optimizer_that_does_not_exist" for f in check_paths([GAPS]))
    monkeypatch.setattr(npu_init, "npu_tf_optimizer_that_does_not_exist", lambda opt: opt,
                        raising=False)
    provided._missing_cache.clear()
    try:
        assert not any(f.name == "npu_tf_optimizer_that_does_not_exist"
                       for f in check_paths([GAPS]))
    finally:
        provided._missing_cache.clear()


@pytest.mark.parametrize("command", [["-m", "npu_bridge.migration_check"]])
def test_command_line(command):
    rc, out = run_python(command + ["--json", GAPS], timeout=120)
    assert rc == 1, out[-3000:]
    report = json.loads(out[out.index("{"):])
    assert report["missing"] == 7


def test_star_imported_names_from_several_modules(tmp_path):
    script = tmp_path / "stars.py"
    script.write_text("from npu_bridge.npu_init import *\n"
                      "from npu_bridge.estimator.npu.util import *\n"
                      "print(set_iteration_per_loop, NPURunConfig, tf.Session, nothing_here)\n"
                      "def f(arg):\n    local = arg\n    return local, tf.contrib.nope\n")
    found = [(f.line, f.col, f.name, f.missing) for f in check_paths([str(script)])]
    assert found == [(3, 57, "nothing_here", "npu_bridge.npu_init.nothing_here"),
                     (6, 19, "tf.contrib.nope", "tensorflow.contrib.nope")]
