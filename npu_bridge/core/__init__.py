"""The estimator core: ``NPUEstimatorSpec`` and its host_call, ``NPURunConfig``, ``NPUEstimator``.

The device loop and the outfeed that carry a spec's steps and host_call
values live in ``npu_bridge.device_loop``; this folder is what a ``model_fn``
and a training script talk to.
"""
