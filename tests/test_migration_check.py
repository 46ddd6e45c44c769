"""npu-bridge-check tells the truth: its verdict agrees with running the scripts, every file is read.

One resolver process (the TF1 mode switched on) answers the whole module; the
tests that need a resolver that misbehaves or cannot start make their own.
"""
import glob
import io
import json
import os
import re
import sys

import pytest

from distributed_util import ROOT
from tf1_util import SCRIPTS, run_python, tagged_json
from npu_bridge.migration_check import check_paths, python2, report
from npu_bridge.migration_check.cli import parse_args
from npu_bridge.migration_check.resolver_client import ResolverClient
from npu_bridge.tf1 import tf2_homes

sys.path.insert(0, os.path.join(ROOT, "tools"))
import census  # noqa: E402

SAMPLES = os.path.join(ROOT, "tests", "migration_samples")
GAPS = os.path.join(SAMPLES, "gaps_estimator.py")
CLEAN = os.path.join(SAMPLES, "clean_session.py")
MARKER = re.compile(r"^# npu-bridge-check: (stops at|finds) ([\w.]+(?:, [\w.]+)*)", re.MULTILINE)


@pytest.fixture(scope="module")
def client():
    with ResolverClient() as shared:
        yield shared


def _check(client, *paths):
    return {r.path: r for r in check_paths([str(p) for p in paths], client=client)}


def _write(folder, name, data):
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


# ---- the verdict agrees with running the script -------------------------------------------

def _expectations():
    """(path, "clean" | "stops at" | "finds", names) for every script under tests/tf1_scripts."""
    for path in sorted(glob.glob(os.path.join(SCRIPTS, "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            found = MARKER.search(f.read())
        if found is None:
            yield path, "clean", []
        else:
            yield path, found.group(1), found.group(2).split(", ")


_RUN_EACH = r"""
import importlib, json, sys, traceback
from npu_bridge.tf1 import runner
real_tf = importlib.import_module("tensorflow")
outcomes = {}
for path in sys.argv[1:]:
    real_tf.compat.v1.reset_default_graph()
    try:
        runner.main([path])
        outcomes[path] = None
    except SystemExit as stop:
        outcomes[path] = None if stop.code in (0, None) else ["SystemExit", str(stop.code), 0]
    except BaseException as error:
        lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == path]
        outcomes[path] = [type(error).__name__, str(error), lines[-1] if lines else 0]
print("OUTCOMES " + json.dumps(outcomes))
"""


def _run_each(scripts):
    """{script: None if it ran, else [error type, message, its line in the script]}, all run
    by ``npu_bridge.tf1.runner`` in one process (each fails at graph building, so one suffices)."""
    rc, out = run_python(["-c", _RUN_EACH] + scripts, timeout=240)
    assert rc == 0, out[-4000:]
    return tagged_json(out, "OUTCOMES")


def _words(text):
    return " ".join(text.split())


def test_the_verdict_agrees_with_running_every_tf1_script(client):
    # Every script under tests/tf1_scripts, also those other branches add: without a marker it
    # must be clean (the TF1-mode tests run it); "finds" lists what it uses on purpose; "stops
    # at" scripts are run here and must fail where the check says (or, if the TF1 mode has
    # come to provide the name, run and be reported clean).
    expectations = list(_expectations())
    reports = _check(client, SCRIPTS)
    assert sorted(reports) == [path for path, _, _ in expectations]
    stopping = [path for path, kind, _ in expectations if kind == "stops at"]
    outcomes = _run_each(stopping)
    failed = 0
    for path, kind, names in expectations:
        verdict = reports[path]
        if kind == "clean":
            assert verdict.status == "clean", (path, verdict.findings)
        elif kind == "finds":
            assert sorted({f.missing for f in verdict.findings}) == sorted(names), verdict.findings
        elif outcomes[path] is None:
            assert verdict.status == "clean", (path, "runs, yet", verdict.findings)
        else:
            failed += 1
            error_type, error_text, line = outcomes[path]
            first = verdict.findings[0]
            assert verdict.status == "missing" and first.missing == names[0], (path, first)
            assert 0 < first.line <= line, (path, first, outcomes[path])  # not after it fails
            checker_text = _words(first.message.split(error_type + ": ", 1)[-1])
            assert error_type in first.message, (path, first.message, outcomes[path])
            assert (_words(error_text) in _words(first.message) or checker_text in
                    _words(error_text) or "always raises " + error_type in first.message), \
                (path, first.message, outcomes[path])
    assert failed >= 2, outcomes  # npu_ops' stub and contrib.ffmpeg stay unprovided


# ---- every file is read, each kind reported apart -----------------------------------------

def test_bom_encoding_declaration_python2_and_unparsable_files(tmp_path, client):
    bom = _write(tmp_path, "bom.py", b"\xef\xbb\xbfimport tensorflow as tf\nx = tf.contrib.nope\n")
    latin = _write(tmp_path, "latin.py", b"# -*- coding: latin-1 -*-\nimport tensorflow as tf\n"
                                         b"name = '\xe9t\xe9'\nsession = tf.Session\n")
    no_declaration = _write(tmp_path, "gbk.py", b"import tensorflow as tf\nname = '\xb5\xc4'\n")
    py2_syntax = _write(tmp_path, "py2_syntax.py", "import tensorflow as tf\nprint 'step', 1\n")
    py2_names = _write(tmp_path, "py2_names.py",
                       "from npu_bridge.npu_init import *\n"
                       "for i in xrange(3):\n    print(unicode(i), NPURunConfig)\n"
                       "import six\nif six.PY2:\n    text = unicode('x')\n"
                       "ok = six.PY3 or unichr(3)\n"
                       "try:\n    basestring\nexcept NameError:\n    basestring = str\n")
    broken = _write(tmp_path, "broken.py", "import tensorflow as tf\ndef f(:\n")
    reports = _check(client, bom, latin, no_declaration, py2_syntax, py2_names, broken)
    assert [(f.line, f.missing) for f in reports[bom].findings] == [(2, "tensorflow.contrib.nope")]
    assert reports[latin].status == "clean"
    assert reports[no_declaration].status == "unreadable"
    assert "utf-8" in reports[no_declaration].findings[0].message
    assert reports[py2_syntax].status == "python2"
    assert reports[py2_syntax].findings[0].message.startswith(
        "Python 2 code: a print statement at line 2 (Python 3 stops there: SyntaxError: "
        "Missing parentheses in call to 'print'")
    # Python 2 builtins are Python 2 code, never names npu_init misses; version tests and
    # NameError guards are the script's own compatibility code.
    findings = reports[py2_names].findings
    assert reports[py2_names].status == "python2"
    assert [(f.line, f.kind, f.name) for f in findings] == [
        (2, "python2", "xrange"), (3, "python2", "unicode")]
    assert findings[0].message == "xrange is a Python 2 builtin (Python 3: range)"
    assert reports[broken].status == "unreadable"
    assert reports[broken].findings[0].line == 2
    assert report.exit_code([reports[broken], reports[latin]]) == 2
    assert report.exit_code([reports[py2_names], reports[latin]]) == 1
    assert report.exit_code([reports[latin]]) == 0 and report.exit_code([]) == 2


def test_a_script_is_checked_with_the_modules_of_its_folder_it_imports(tmp_path, client):
    # npu-bridge-run puts the script's folder first on sys.path: its own modules stop it too.
    train = _write(tmp_path, "train.py", "import tensorflow as tf\nfrom nets import vgg\n"
                                         "import helpers\nfrom npu_bridge.npu_init import *\n")
    (tmp_path / "nets").mkdir()
    init = _write(tmp_path / "nets", "__init__.py", "from .layers import conv\n")
    vgg = _write(tmp_path / "nets", "vgg.py", "import tensorflow as tf\n"
                                              "decode = tf.contrib.ffmpeg.decode_audio\n")
    layers = _write(tmp_path / "nets", "layers.py", "conv = None\n")
    helpers = _write(tmp_path, "helpers.py", "print 'python 2'\n")
    _write(tmp_path, "unrelated.py", "import tensorflow as tf\nx = tf.contrib.nope\n")
    reports = _check(client, train)
    assert sorted(reports) == sorted([train, init, vgg, layers, helpers])
    assert [r.status for r in (reports[train], reports[init], reports[layers])] == ["clean"] * 3
    assert [f.missing for f in reports[vgg].findings] == ["tensorflow.contrib.ffmpeg"]
    assert reports[helpers].status == "python2"
    only = check_paths([train], client=client, follow_imports=False)
    assert [r.path for r in only] == [train]


def test_names_assigned_from_tracked_names_are_aliases(tmp_path, client):
    script = _write(tmp_path, "aliases.py",
                    "import tensorflow as tf\nslim = tf.contrib.slim\nflags = tf.app.flags\n"
                    "FLAGS = flags.FLAGS\nlayers = tf.contrib.layers\nlayers = []\n"
                    "def f(x):\n    layers.append(FLAGS.batch)\n    return slim.no_such_layer(x)\n")
    findings = _check(client, script)[script].findings
    assert [(f.line, f.problem, f.missing) for f in findings] == [
        (9, "missing", "tensorflow.contrib.slim.no_such_layer")]  # layers is bound twice: no alias


def test_whatever_a_lookup_raises_is_a_finding(tmp_path, client):
    # npu_cpu_ops' module __getattr__ raises NotImplementedError: a finding, not a crash.
    script = _write(tmp_path, "cpu_ops.py",
                    "from npu_bridge.npu_cpu import npu_cpu_ops\n"
                    "mask = npu_cpu_ops.embeddingrankid([[1]], count=1)\n"
                    "from npu_bridge.npu_cpu.npu_cpu_ops import embeddingrankid\n")
    findings = _check(client, script)[script].findings
    assert [(f.line, f.problem, f.missing) for f in findings] == [
        (2, "missing", "npu_bridge.npu_cpu.npu_cpu_ops.embeddingrankid"),
        (3, "missing", "npu_bridge.npu_cpu.npu_cpu_ops.embeddingrankid")]
    assert all("NotImplementedError: " in f.message for f in findings)


def test_a_lookup_that_raises_exits_hangs_or_kills_the_resolver(tmp_path, monkeypatch):
    # A project's own keras package shadows Keras 2.15 (it has no __version__, which
    # TensorFlow's tf.keras reads): the resolver still starts, and the TF1 mode's Keras paths
    # (keras.X is looked for as keras.src.X) import its modules, which misbehave.
    fake = tmp_path / "fake"
    package = fake / "keras" / "src"
    package.mkdir(parents=True)
    (fake / "keras" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "odd.py").write_text("def __getattr__(name):\n    raise TypeError('odd ' + name)\n")
    (package / "exits.py").write_text("raise SystemExit(3)\n")
    (package / "dies.py").write_text("import os\nos._exit(7)\n")
    (package / "hangs.py").write_text("import time\ntime.sleep(600)\n")
    script = _write(tmp_path, "uses_fake_keras.py",
                    "import keras.exits\nfrom keras.odd import anything\n"
                    "import keras.dies\nimport keras.hangs\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(fake),
                                                       os.environ.get("PYTHONPATH", "")]))
    with ResolverClient(lookup_timeout=6) as own:
        reports = _check(own, script)
    found = [(f.line, f.problem, f.missing or f.name, f.message.split(": ", 1)[1])
             for f in reports[script].findings]
    assert found == [
        (1, "missing", "keras.exits", "SystemExit: 3"),
        (2, "missing", "keras.odd.anything", "TypeError: odd anything"),
        (3, "unresolved", "keras.dies", "looking it up ended the resolver process (exit code 7)"),
        (4, "unresolved", "keras.hangs", "looking it up did not finish within 6 s")]
    assert reports[script].status == "missing" and report.exit_code(list(reports.values())) == 1


# ---- names, calls and what to use instead ------------------------------------------------

def test_known_gaps_are_listed_with_file_line_and_kind(client):
    findings = [(f.line, f.col, f.kind, f.problem, f.name, f.missing)
                for f in _check(client, GAPS)[GAPS].findings]
    assert findings == [
        (5, 1, "tf.contrib", "missing", "tensorflow.contrib.lite.TFLiteConverter",
         "tensorflow.contrib.lite"),
        (7, 1, "npu_bridge", "missing", "npu_bridge.estimator.npu.npu_config.NoSuchConfig",
         "npu_bridge.estimator.npu.npu_config.NoSuchConfig"),
        (8, 1, "npu_bridge", "missing", "hccl.not_a_module.api.get_rank_size",
         "hccl.not_a_module"),
        (14, 12, "tf.contrib", "missing", "tf.contrib.rnn.NASCell",
         "tensorflow.contrib.rnn.NASCell"),
        (16, 11, "npu_bridge", "missing", "npu_tf_optimizer_that_does_not_exist",
         "npu_bridge.npu_init.npu_tf_optimizer_that_does_not_exist"),
        (19, 5, "tf.contrib", "missing", "tf.contrib.summary.create_db_writer",
         "tensorflow.contrib.summary.create_db_writer"),
        (20, 9, "tensorflow", "missing", "tf.no_such_tf1_function",
         "tensorflow.no_such_tf1_function")]
    assert _check(client, CLEAN)[CLEAN].status == "clean"


def test_calls_whose_arguments_the_callee_rejects(tmp_path, client):
    script = _write(tmp_path, "calls.py",
                    "import tensorflow as tf, keras\n"
                    "from npu_bridge.npu_init import *; rate = axis = x = args = None\n"
                    "a = keras.optimizers.SGD(0.1, momentum=0.9, decay=rate)\n"
                    "b = keras.optimizers.SGD(0.1, momentum=0.9)\n"
                    "c = tf.compat.v1.keras.layers.BatchNormalization(axis=axis, epsilon=1e-3)\n"
                    "d = tf.reduce_mean(x, keep_dims=True)\n"
                    "e = tf.transpose(x, axis=[1, 0])\n"
                    "f = npu_ops.dropout(x, keep_prob=0.9, is_training=True)\n"
                    "g = tf.keras.layers.Dense(4, border_mode='same')\n"
                    "h = tf.compat.v1.layers.conv2d(x, *args, padding='same')\n"
                    "try:\n    i = tf.keras.optimizers.Adam(decay=0.1)\nexcept ValueError:\n"
                    "    i = None\n")
    found = [(f.line, f.problem, f.missing, f.message.split("arguments: ", 1)[1])
             for f in _check(client, script)[script].findings]
    # Line 3 passes: in the TF1 mode ``keras`` is TF 1.15's Keras, whose SGD takes decay.
    assert found == [
        (7, "argument", "tensorflow.transpose",
         "TypeError: got an unexpected keyword argument 'axis'"),
        (8, "argument", "npu_bridge.npu_init.npu_ops.dropout",
         "TypeError: got an unexpected keyword argument 'is_training'"),
        (9, "argument", "tensorflow.keras.layers.Dense",
         "TypeError: ('Keyword argument not understood:', 'border_mode')")]


def test_every_use_instead_is_a_name_that_exists():
    import importlib
    import tensorflow as tf
    for part, (home, hint) in tf2_homes.HOMES.items():
        assert home in hint
        root, *attrs = home.split(".")
        current = tf if root == "tf" else importlib.import_module(home)
        for attr in attrs if root == "tf" else []:
            current = getattr(current, attr)
        assert tf2_homes.hint_for("tf.contrib.%s.anything" % part) == hint
    manager = importlib.import_module(tf2_homes.HOMES["mixed_precision"][0])
    assert manager.FixedLossScaleManager and manager.ExponentialUpdateLossScaleManager
    import builtins
    for name, (instead, _) in python2.INSTEAD.items():
        assert not hasattr(builtins, name), name
        if instead is None:
            continue
        module, _, attr = instead.rpartition(".")
        assert getattr(importlib.import_module(module) if module else builtins, attr), instead
    assert tf2_homes.hint_for("tf.contrib.learn") is None


def test_contrib_errors_name_the_tf2_home_only_where_there_is_one(tmp_path, client):
    script = _write(tmp_path, "homes.py", "import tensorflow as tf\n"
                                          "r = tf.contrib.lite.TFLiteConverter\n"
                                          "s = tf.contrib.seq2seq.BasicDecoder\n")
    first, second = _check(client, script)[script].findings
    assert first.message.endswith(
        "tf.contrib.lite is not provided by npu_bridge's TF1 mode (TensorFlow 2.15 "
        "has it as tf.lite; see docs/tf1_mode.md for what it provides)")
    assert ("tf.contrib.seq2seq.BasicDecoder is not provided by npu_bridge's TF1 mode (see "
            "docs/tf1_mode.md for what it provides). Instead: " in second.message)
    assert "TensorFlow 2.15 has it" not in second.message


# ---- the command and the census ----------------------------------------------------------

def test_command_line_json_exit_codes_and_help(tmp_path):
    rc, out = run_python(["-m", "npu_bridge.migration_check", "--json", SAMPLES], timeout=240)
    assert rc == 1, out[-3000:]
    result = json.loads(out[out.index("{"):])
    assert result["files"] == 2 and result["missing"] == 7
    assert result["status"] == {"crash": 0, "unreadable": 0, "python2": 0, "missing": 1,
                                "clean": 1}
    assert result["findings"][0] == {
        "path": GAPS, "line": 5, "col": 1, "kind": "tf.contrib", "problem": "missing",
        "name": "tensorflow.contrib.lite.TFLiteConverter", "missing": "tensorflow.contrib.lite",
        "message": "tensorflow.contrib.lite.TFLiteConverter: ContribModuleNotProvided: "
                   "tensorflow.contrib.lite is not provided by npu_bridge's TF1 mode "
                   "(TensorFlow 2.15 has it as tf.lite; see docs/tf1_mode.md for what it "
                   "provides)"}
    # A resolver that cannot start (a broken TensorFlow): one line, exit 2, no traceback.
    broken_tf = tmp_path / "broken" / "tensorflow"
    broken_tf.mkdir(parents=True)
    (broken_tf / "__init__.py").write_text("raise ImportError('this TensorFlow is broken')\n")
    rc, out = run_python(["-m", "npu_bridge.migration_check", CLEAN], timeout=120,
                         extra_env={"PYTHONPATH": str(tmp_path / "broken")})
    assert rc == 2, out[-3000:]
    assert "npu-bridge-check: could not check: the resolver process did not start" in out
    assert "this TensorFlow is broken" in out and "Traceback" not in out


def test_help_documents_the_exit_codes(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    text = capsys.readouterr().out
    for code, meaning in report.EXIT_CODES:
        assert "  %d  %s" % (code, meaning.split(",")[0]) in text


def test_text_output_sections(tmp_path, client):
    py2 = _write(tmp_path, "old.py", "import tensorflow as tf\nfor i in xrange(2):\n    pass\n")
    broken = _write(tmp_path, "broken.py", "def f(:\n")
    out = io.StringIO()
    report.write_text(list(_check(client, GAPS, CLEAN, py2, broken).values()), out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "What stops these scripts in npu_bridge's TF1 mode:"
    assert lines[1].startswith("%s:5:1: tf.contrib: tensorflow.contrib.lite.TFLiteConverter: "
                               % GAPS)
    assert "Python 2 code (fails on Python 3 whatever npu_bridge provides):" in lines
    assert "%s:2:10: python2: xrange is a Python 2 builtin (Python 3: range)" % py2 in lines
    assert lines[-3] == "Not checked:"
    assert lines[-2].startswith("%s:1:0: error: Python cannot read or parse this file" % broken)
    assert lines[-1] == ("4 file(s) checked: 1 with nothing missing, 1 with something missing, "
                         "1 Python 2, 1 not checked; 7 use(s) that would stop a script")


def test_census_counts_files_shares_and_the_names_that_stop_most(tmp_path, client):
    for index in range(3):
        _write(tmp_path, "uses_lite_%d.py" % index,
               "import tensorflow as tf\nfrom npu_bridge.npu_init import *\n"
               "a = tf.contrib.lite.TFLiteConverter\nb = tf.contrib.lite.Interpreter\n")
    _write(tmp_path, "clean.py", "import tensorflow as tf\nimport npu_bridge\nx = tf.Session\n")
    _write(tmp_path, "py2.py", "import hccl\nprint 'x'\n")
    _write(tmp_path, "not_ours.py", "import tensorflow as tf\nx = tf.contrib.nope\n")
    _write(tmp_path, "unbound.py", "from npu_bridge.npu_init import *\nprint(never_defined)\n")
    _write(tmp_path, "unreadable.py", b"from npu_bridge import npu_init\nx = '\xb5'\n")
    pattern = re.compile(census.DEFAULT_FILTER, re.MULTILINE)
    result = census.run([str(tmp_path)], pattern, 5, client)
    assert (result["files"], result["nothing_missing"], result["something_missing"],
            result["python2"], result["unreadable"], result["crashes"]) == (7, 1, 4, 1, 1, 0)
    assert result["only_unbound_names"] == 1
    assert result["nothing_missing_share"] == 14.3
    assert result["top_missing"] == [("tensorflow.contrib.lite", 3),  # by files, not uses
                                     ("npu_bridge.npu_init.never_defined", 1)]
    out = io.StringIO()
    census.write_text(result, "the default", 1.0, out)
    assert "nothing missing:     1 (14.3%)" in out.getvalue()
    assert "  of which only names the file never binds: 1 (14.3%)" in out.getvalue()
    assert "      3  tensorflow.contrib.lite" in out.getvalue()


def test_a_fallback_counts_only_when_its_try_body_fails_here(tmp_path, client):
    # except-handlers for a missing name are the script's code for other library versions.
    script = _write(tmp_path, "fallbacks.py",
                    "import numpy as np\nimport tensorflow as tf\n"
                    "try:\n    inc = np.get_include()\nexcept AttributeError:\n"
                    "    inc = np.get_numpy_include()\n"                            # 6: not reached
                    "try:\n    y = tf.nn.sigmoid_cross_entropy_with_logits(logits=1., labels=1.)\n"
                    "except:\n    y = tf.nn.sigmoid_cross_entropy_with_logits(1., targets=1.)\n"
                    "try:\n    y = tf.contrib.nope_not_here(1)\nexcept AttributeError:\n"
                    "    y = tf.mul(2, 3)\n"                                        # 14: reached
                    "try:\n    import cv2\nexcept ImportError:\n"
                    "    z = tf.mul(1, 1)\n"                   # 18: the body uses nothing we know
                    "try:\n    w = np.get_include()\nexcept ValueError:\n"
                    "    w = np.get_numpy_include()\n")          # 22: not a missing-name fallback
    found = [(f.line, f.missing) for f in _check(client, script)[script].findings]
    assert found == [(14, "tensorflow.mul"), (18, "tensorflow.mul"),
                     (22, "numpy.get_numpy_include")]


def test_assigning_an_attribute_reads_only_its_prefix(tmp_path, client):
    script = _write(tmp_path, "assigns.py",
                    "import tensorflow as tf\ntf.contrib._warning = None\n"
                    "tf.contrib.nope.x = 1\ndel tf.contrib.slim.fake\n")
    found = [(f.line, f.missing) for f in _check(client, script)[script].findings]
    assert found == [(3, "tensorflow.contrib.nope")]
