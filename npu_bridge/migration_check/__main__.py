"""``python -m npu_bridge.migration_check PATH...`` (same as ``npu-bridge-check``)."""

import sys

from npu_bridge.migration_check.cli import main

sys.exit(main())
