"""The npu_init star import in the TF1 mode: keeps a chosen tf, gives the TF1 API otherwise."""
import json
import sys

import tensorflow.compat.v1 as tf
from npu_bridge.npu_init import *

kept = tf is sys.modules["tensorflow.compat.v1"]
del tf
from npu_bridge.npu_init import *  # noqa: E402,F811

print("STAR " + json.dumps({"kept_compat_v1": kept, "given_has_contrib": hasattr(tf, "contrib"),
                            "given_has_session": hasattr(tf, "Session"),
                            "npu_names": NPURunConfig.__name__ + "," + npu_config_proto.__name__}))
