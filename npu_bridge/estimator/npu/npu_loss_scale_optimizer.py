"""Shim for the original path ``npu_bridge.estimator.npu.npu_loss_scale_optimizer``."""
