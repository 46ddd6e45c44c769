"""contrib's Adam variants: ``LazyAdamOptimizer`` and ``NadamOptimizer`` (small code of ours).

Both are ``tf.compat.v1.train.AdamOptimizer`` (same slots ``m``/``v``, same
beta accumulators, same dense update for LazyAdam) with TF 1.15's changes:

- LazyAdam, for sparse gradients (embeddings): only the rows in the
  gradient are touched.  m and v of those rows decay and take the gradient;
  var_row -= lr_t * m_row / (sqrt(v_row) + epsilon), with lr_t =
  lr * sqrt(1 - beta2^t) / (1 - beta1^t).  Plain Adam decays m and v of
  every row.
- Nadam uses Nesterov momentum: var -= lr_t * (beta1 * m_t + (1 - beta1) * g)
  / (sqrt(v_t) + epsilon) (TensorFlow's Adam kernel with ``use_nesterov``);
  sparse gradients update m and v as Adam does and the variable on the
  gradient's rows.
"""

import tensorflow as tf


class _AdamTerms:
    """Adam's per-step scalars cast to ``dtype``."""

    def __init__(self, optimizer, dtype):
        beta1_power, beta2_power = optimizer._get_beta_accumulators()  # noqa: SLF001
        self.beta1_power = tf.cast(beta1_power, dtype)
        self.beta2_power = tf.cast(beta2_power, dtype)
        self.lr = tf.cast(optimizer._lr_t, dtype)  # noqa: SLF001
        self.beta1 = tf.cast(optimizer._beta1_t, dtype)  # noqa: SLF001
        self.beta2 = tf.cast(optimizer._beta2_t, dtype)  # noqa: SLF001
        self.epsilon = tf.cast(optimizer._epsilon_t, dtype)  # noqa: SLF001
        self.step_lr = self.lr * tf.sqrt(1 - self.beta2_power) / (1 - self.beta1_power)


class LazyAdamOptimizer(tf.compat.v1.train.AdamOptimizer):
    """Adam that updates only the rows a sparse gradient names (TF 1.15 contrib)."""

    def _lazy_rows(self, values, var, indices):
        terms = _AdamTerms(self, var.dtype.base_dtype)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = tf.compat.v1.scatter_update(
            m, indices, terms.beta1 * tf.gather(m, indices) + (1 - terms.beta1) * values,
            use_locking=self._use_locking)
        v_t = tf.compat.v1.scatter_update(
            v, indices, terms.beta2 * tf.gather(v, indices)
            + (1 - terms.beta2) * tf.square(values), use_locking=self._use_locking)
        with tf.control_dependencies([m_t, v_t]):
            step = terms.step_lr * tf.gather(m, indices) / (
                tf.sqrt(tf.gather(v, indices)) + terms.epsilon)
            var_update = tf.compat.v1.scatter_sub(var, indices, step,
                                                  use_locking=self._use_locking)
        return tf.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        return self._lazy_rows(grad.values, var, grad.indices)

    def _resource_apply_sparse(self, grad, var, indices):
        return self._lazy_rows(grad, var, indices)


class NadamOptimizer(tf.compat.v1.train.AdamOptimizer):
    """Adam with Nesterov momentum (TF 1.15 contrib)."""

    def _apply_dense(self, grad, var):
        terms = _AdamTerms(self, var.dtype.base_dtype)
        return tf.raw_ops.ApplyAdam(
            var=var, m=self.get_slot(var, "m"), v=self.get_slot(var, "v"),
            beta1_power=terms.beta1_power, beta2_power=terms.beta2_power, lr=terms.lr,
            beta1=terms.beta1, beta2=terms.beta2, epsilon=terms.epsilon, grad=grad,
            use_locking=self._use_locking, use_nesterov=True).op

    def _resource_apply_dense(self, grad, var):
        terms = _AdamTerms(self, grad.dtype.base_dtype)
        return tf.raw_ops.ResourceApplyAdam(
            var=var.handle, m=self.get_slot(var, "m").handle, v=self.get_slot(var, "v").handle,
            beta1_power=terms.beta1_power, beta2_power=terms.beta2_power, lr=terms.lr,
            beta1=terms.beta1, beta2=terms.beta2, epsilon=terms.epsilon, grad=grad,
            use_locking=self._use_locking, use_nesterov=True)

    def _nesterov_rows(self, values, var, indices):
        terms = _AdamTerms(self, var.dtype.base_dtype)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_scaled = values * (1 - terms.beta1)
        m_t = tf.compat.v1.assign(m, m * terms.beta1, use_locking=self._use_locking)
        with tf.control_dependencies([m_t]):
            m_t = tf.compat.v1.scatter_add(m, indices, m_scaled, use_locking=self._use_locking)
        v_t = tf.compat.v1.assign(v, v * terms.beta2, use_locking=self._use_locking)
        with tf.control_dependencies([v_t]):
            v_t = tf.compat.v1.scatter_add(v, indices, tf.square(values) * (1 - terms.beta2),
                                           use_locking=self._use_locking)
        with tf.control_dependencies([m_t, v_t]):
            m_bar = m_scaled + terms.beta1 * tf.gather(m, indices)
            step = terms.step_lr * m_bar / (tf.sqrt(tf.gather(v, indices)) + terms.epsilon)
            var_update = tf.compat.v1.scatter_sub(var, indices, step,
                                                  use_locking=self._use_locking)
        return tf.group(var_update, m_t, v_t)

    def _apply_sparse(self, grad, var):
        return self._nesterov_rows(grad.values, var, grad.indices)

    def _resource_apply_sparse(self, grad, var, indices):
        return self._nesterov_rows(grad, var, indices)
