"""TF 1.15 internal functions whose 2.15 counterpart takes other arguments."""

import tensorflow as tf


def variable(initial_value=None, trainable=None, collections=None, validate_shape=True,
             caching_device=None, name=None, dtype=None, constraint=None, use_resource=None,
             synchronization=tf.VariableSynchronization.AUTO,
             aggregation=tf.VariableAggregation.NONE, shape=None):
    """TF 1.15's ``variable_scope.variable``: a ``tf.compat.v1.Variable`` in its argument order."""
    return tf.compat.v1.Variable(
        initial_value=initial_value, trainable=trainable, collections=collections,
        validate_shape=validate_shape, caching_device=caching_device, name=name, dtype=dtype,
        constraint=constraint, use_resource=use_resource, synchronization=synchronization,
        aggregation=aggregation, shape=shape)
