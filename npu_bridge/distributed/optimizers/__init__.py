"""Optimizers that average gradients over ranks: NPUDistributedOptimizer, its sharded update, wrappers."""
