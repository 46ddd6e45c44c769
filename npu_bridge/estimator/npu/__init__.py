"""Original adapter path ``npu_bridge.estimator.npu``: a namespace of shims."""
