"""``npu-bridge-check PATH...``: what would stop TF 1.15 scripts in npu_bridge's TF1 mode, unrun.

The scripts are read, never run.  ``source`` reads a file as Python does
(byte-order mark, encoding declaration); ``python2`` tells Python 2 code
apart; ``scan`` finds every name a script takes from TensorFlow, tf.contrib,
Keras, numpy, npu_bridge and hccl, and its calls of them (``lookup`` is how
such a use is put to the resolver); ``context`` says which errors the
script catches around a use.  Whether a name is provided is decided by the
TF1 mode itself: ``resolver_client`` starts one resolver process per run
(``resolver``), which switches the mode on and answers each lookup as
script code would see it (``answer``: ``resolve`` obtains the name,
``code_reach`` reads its code for names that fail, ``call_check`` puts the
call's arguments to it).  ``check`` turns answers into findings per file,
``report`` prints them with an exit code, ``cli`` is the command.
"""

from npu_bridge.migration_check.check import FileReport, Finding, check_paths

__all__ = ["FileReport", "Finding", "check_paths"]
