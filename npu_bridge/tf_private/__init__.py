"""TensorFlow's private API, gathered in one small module per TensorFlow area.

npu_bridge builds on a few things TensorFlow and the Estimator do not publish:
graph edits inside loop bodies, the Estimator's own steps of building and
running a graph, summary-writer ops, the session class, collective ops, the
debugger's dump reader. Each area's module here imports them, checks the
TensorFlow version once, and says what breaks when they change; every other
module of npu_bridge takes them from here. So an upgrade of TensorFlow that
moves one of them fails in the one file that names it, at import, with a
message saying which feature it takes down.

* ``estimator``: the Estimator's private steps NPUEstimator builds on, and
  the multi-step evaluation hook;
* ``graph``: while_v2, control inputs added to existing ops, ``DeepCopy``,
  meta graphs;
* ``summary``: writer initialisers, flushing and importing events;
* ``session``: ``BaseSession`` (sessions of ranks) and the py_func registry
  (original error types);
* ``distribute``: collective ops and Slurm's host-list syntax;
* ``checkpoint``: saveable objects and the Saver's name map (sharded slots,
  shape checks);
* ``debugger``: tfdbg's watches and dump reader;
* ``platform``: CPU feature flags and kernels without a public wrapper.
"""

import logging

import tensorflow as tf

TESTED_VERSION = "2.15"

_log = logging.getLogger("npu_bridge")
_warned = set()


def tensorflow_version():
    """TensorFlow's "major.minor"."""
    return ".".join(tf.__version__.split(".")[:2])


def check_version(area, relies_on):
    """Called by each area module at import: says once if TensorFlow is not the tested one."""
    version = tensorflow_version()
    if version != TESTED_VERSION and area not in _warned:
        _warned.add(area)
        _log.warning("npu_bridge.tf_private.%s uses TensorFlow %s internals (%s); this is "
                     "TensorFlow %s. If they changed, the error is raised there.",
                     area, TESTED_VERSION, relies_on, version)


def missing(area, names, breaks, error):
    """The ImportError an area module raises when TensorFlow lacks what it imports."""
    return ImportError(
        "npu_bridge.tf_private.%s: TensorFlow %s does not provide %s (tested with %s: %s); "
        "without it %s." % (area, tf.__version__, names, TESTED_VERSION, error, breaks))
