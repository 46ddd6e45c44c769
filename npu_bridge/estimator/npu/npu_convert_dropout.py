"""Shim for the original path ``npu_bridge.estimator.npu.npu_convert_dropout``.

On Ascend, importing it makes Keras' ``Dropout`` layer call ``npu_ops.dropout``
(the same computation through Ascend's mask kernels).  Keras' own Dropout
computes the same here, so importing it changes nothing.
"""
