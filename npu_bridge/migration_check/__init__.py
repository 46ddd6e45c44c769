"""``npu-bridge-check PATH...``: which npu_bridge, tf.contrib and TF1 names a script uses that are missing here.

It reads the scripts (``ast``); it never runs them.  ``scan`` finds every
name a script takes from TensorFlow (as the TF1 mode gives it), from
``tensorflow.contrib``, from npu_bridge / hccl, and the names a ``from
npu_bridge.npu_init import *`` must supply.  ``provided`` decides whether
each exists by looking it up in the installed package at check time (the TF1
module, its contrib parts, npu_bridge's modules), so names added to
npu_bridge later are picked up without a list to update.  ``report`` prints
``file:line:col`` findings or JSON; ``cli`` is the command.
"""

from npu_bridge.migration_check.check import Finding, check_paths

__all__ = ["Finding", "check_paths"]
