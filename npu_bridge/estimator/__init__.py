"""Original adapter path ``npu_bridge.estimator``: a namespace of shims."""
