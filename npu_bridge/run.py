"""``python -m npu_bridge.run script.py args``: a TF 1.15 script on TF 2.15 (see npu_bridge.tf1)."""

import sys

from npu_bridge.tf1.runner import main

if __name__ == "__main__":
    sys.exit(main())
