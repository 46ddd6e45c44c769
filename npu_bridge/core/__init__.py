"""The estimator: ``NPUEstimatorSpec``, ``NPURunConfig`` and the sessions it starts, ``NPUEstimator``.

This folder is what a ``model_fn`` and a training script talk to. The loop
that carries a spec's steps and its host_call values (and host_call's own
checks) live in ``npu_bridge.device_loop``; NPUEstimator makes one loop plan
per train()/evaluate() call and hands it there.
"""
