"""Keras names of TF 1.15's time that Keras 2.15 dropped, as short code of ours.

One namespace per group of paths that held them; ``paths`` lists a
namespace among the sources of those paths (``keras.engine.topology.
Network``, ``tensorflow.python.keras.utils.multi_gpu_model``,
``tf.keras.mixed_precision.experimental.set_policy``,
``keras.layers.Deconvolution3D``).
"""

import types

from keras.src.engine.functional import Functional
from keras.src.layers.convolutional.conv2d_transpose import Conv2DTranspose
from keras.src.layers.convolutional.conv3d_transpose import Conv3DTranspose
from keras.src.mixed_precision import policy as _policy

from npu_bridge.tf1.notices import warn_once


def multi_gpu_model(model, gpus=None, cpu_merge=True, cpu_relocation=False):
    """``model`` itself: the same outputs and gradients, on one device.

    TF 1.15's version split each batch over ``gpus`` replicas of the model and
    concatenated their outputs, which computes what the model alone computes.
    Data-parallel training here is by ranks (``npu-bridge-launch -n N``).
    """
    del cpu_merge, cpu_relocation
    count = len(gpus) if isinstance(gpus, (list, tuple)) else gpus
    if not isinstance(count, int) or count <= 1:
        raise ValueError("multi_gpu_model: gpus must be an int >= 2 or a list of at least 2 "
                         "GPU ids, as in TF 1.15; got gpus=%r" % (gpus,))
    warn_once("multi_gpu_model",
              "multi_gpu_model(gpus=%r) returns the model unchanged in npu_bridge's TF1 mode: it "
              "computes the same outputs on one device; for data-parallel training run ranks "
              "with npu-bridge-launch -n N" % (gpus,))
    return model


def set_policy(policy):
    """TF 1.15's ``tf.keras.mixed_precision.experimental.set_policy``: the global dtype policy."""
    _policy.set_global_policy(policy)


# Standalone Keras 2.2's aliases of the transposed convolutions.
LAYERS = types.SimpleNamespace(Deconvolution2D=Conv2DTranspose, Deconv2D=Conv2DTranspose,
                               Deconvolution3D=Conv3DTranspose, Deconv3D=Conv3DTranspose)
# TF 1.15's graph network class, and standalone Keras 2.1's name for it.
ENGINE = types.SimpleNamespace(Network=Functional, Container=Functional)
UTILS = types.SimpleNamespace(multi_gpu_model=multi_gpu_model)
MIXED_PRECISION_EXPERIMENTAL = types.SimpleNamespace(set_policy=set_policy)
