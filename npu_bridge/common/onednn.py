"""oneDNN CPU kernels for the processes npu_bridge starts, unless the user chose otherwise.

TensorFlow 2.15's Linux x86 wheels carry oneDNN kernels but switch them on by
default only on CPUs with AVX512_VNNI, AVX512_BF16 or AMX; on other CPUs
(AVX2-only machines, many AMD EPYCs) convolutions run on Eigen. On such a
machine (bench/, README "Speed") oneDNN made a small conv net's training step
1.6-2x faster and left matmul-only models unchanged. TensorFlow reads
``TF_ENABLE_ONEDNN_OPTS`` once, when its library loads, so the variable only
counts when it is set before ``import tensorflow``.

``prefer_onednn`` sets it to 1 when it is unset; an explicit value (``0`` turns
oneDNN off) is always kept. ``prefer_onednn_in_this_process`` does so for the
running process while TensorFlow is not loaded yet. The commands set it for what they start
(``npu-bridge-run`` before the script, ``npu-bridge-launch`` for its ranks,
``npu-bridge-demo``), and ``npu_init`` sets it when a script imports it before
TensorFlow, as Ascend's migration tool writes it at the top of every file.
oneDNN's results can differ from Eigen's in the last bits (a different order of
summation); runs of one configuration stay comparable with each other.
"""

import os
import sys

ENV = "TF_ENABLE_ONEDNN_OPTS"


def tensorflow_loaded():
    """True once TensorFlow's library is imported: ``ENV`` no longer changes anything."""
    return "tensorflow" in sys.modules


def prefer_onednn(environ):
    """Set ``ENV=1`` in ``environ`` (a dict, or ``os.environ``) when unset; True when set here."""
    if ENV in environ:
        return False
    environ[ENV] = "1"
    return True


def prefer_onednn_in_this_process():
    """``prefer_onednn(os.environ)`` while TensorFlow is not loaded yet; True when set here."""
    return not tensorflow_loaded() and prefer_onednn(os.environ)
