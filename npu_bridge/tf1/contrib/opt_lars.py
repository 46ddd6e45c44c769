"""contrib's ``LARSOptimizer``: layer-wise adaptive rate scaling (small code of ours).

For each variable w with gradient g (TF 1.15's rule):
trust = eeta * |w| / (|g| + weight_decay * |w| + epsilon) when |w| > 0 and
|g| > 0, else 1 (2-norms over the whole variable); then g' = g +
weight_decay * w and momentum m = momentum * m + lr * trust * g';
w -= m (or the Nesterov form).  Variables whose name contains an entry of
``skip_list`` keep trust 1 and get no weight decay.  The slot is
``momentum``.  A sparse gradient is applied as a dense one.
"""

import tensorflow as tf


class LARSOptimizer(tf.compat.v1.train.Optimizer):
    """Momentum SGD with a per-variable trust ratio (TF 1.15 contrib)."""

    def __init__(self, learning_rate, momentum=0.9, weight_decay=0.0001, eeta=0.001,
                 epsilon=0.0, name="LARSOptimizer", skip_list=None, use_nesterov=False):
        if momentum < 0.0:
            raise ValueError("LARSOptimizer momentum must be >= 0; got %r" % (momentum,))
        if weight_decay < 0.0:
            raise ValueError("LARSOptimizer weight_decay must be >= 0; got %r" % (weight_decay,))
        super().__init__(use_locking=False, name=name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._weight_decay = weight_decay
        self._eeta = eeta
        self._epsilon = epsilon
        self._skip_list = skip_list
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for var in var_list:
            self._zeros_slot(var, "momentum", self._name)

    def _scaled_lr_and_grad(self, grad, var):
        dtype = var.dtype.base_dtype
        learning_rate = tf.cast(self._learning_rate, dtype)
        if self._skip_list and any(entry in var.name for entry in self._skip_list):
            return learning_rate, grad
        w_norm = tf.norm(var, ord=2)
        g_norm = tf.norm(grad, ord=2)
        trust = tf.where(
            w_norm > 0,
            tf.where(g_norm > 0,
                     self._eeta * w_norm / (g_norm + self._weight_decay * w_norm + self._epsilon),
                     tf.ones_like(w_norm)),
            tf.ones_like(w_norm))
        return learning_rate * trust, grad + self._weight_decay * var

    def _apply_dense(self, grad, var):
        scaled_lr, grad = self._scaled_lr_and_grad(grad, var)
        return tf.raw_ops.ApplyMomentum(
            var=var, accum=self.get_slot(var, "momentum"), lr=tf.cast(1.0, var.dtype.base_dtype),
            grad=grad * scaled_lr, momentum=tf.cast(self._momentum, var.dtype.base_dtype),
            use_locking=False, use_nesterov=self._use_nesterov).op

    def _resource_apply_dense(self, grad, var):
        scaled_lr, grad = self._scaled_lr_and_grad(grad, var)
        return tf.raw_ops.ResourceApplyMomentum(
            var=var.handle, accum=self.get_slot(var, "momentum").handle,
            lr=tf.cast(1.0, var.dtype.base_dtype), grad=grad * scaled_lr,
            momentum=tf.cast(self._momentum, var.dtype.base_dtype), use_locking=False,
            use_nesterov=self._use_nesterov)

    def _apply_sparse(self, grad, var):
        return self._apply_dense(tf.convert_to_tensor(grad), var)

    def _resource_apply_sparse(self, grad, var, indices):
        dense = tf.math.unsorted_segment_sum(grad, indices, tf.shape(var)[0])
        return self._resource_apply_dense(dense, var)
