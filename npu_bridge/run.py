"""``npu-bridge-run`` / ``python -m npu_bridge.run script.py args``: a TF 1.15 script on TF 2.15.

The TF1 mode itself is ``npu_bridge.tf1``; this command only chooses oneDNN's
CPU kernels (``common.onednn``) before that package loads TensorFlow.
"""

import sys

from npu_bridge.common import onednn


def main(argv=None):
    onednn.prefer_onednn_in_this_process()
    from npu_bridge.tf1.runner import main as run_script  # pylint: disable=import-outside-toplevel
    return run_script(argv)


if __name__ == "__main__":
    sys.exit(main())
