"""``tf.contrib.opt``: decoupled weight decay (AdamW, MomentumW), LARS, LazyAdam, Nadam.

``extend_with_decoupled_weight_decay(OptimizerClass)`` gives a class taking
``weight_decay`` first; every update first shrinks each variable by
``weight_decay * var`` (not scaled by the learning rate, as in TF 1.15), then
applies the base optimizer's update.  ``decay_var_list`` (to ``minimize`` or
``apply_gradients``) limits the decay to those variables.
``AdamWOptimizer`` and ``MomentumWOptimizer`` are the two classes contrib
shipped.  ``LARSOptimizer`` (``opt_lars``), ``LazyAdamOptimizer`` and
``NadamOptimizer`` (``opt_adam_variants``) are small code of ours with TF
1.15's update rules.  Other contrib optimizers (MovingAverage, GGT, Scipy
...) are not provided.
"""

import tensorflow as tf

from npu_bridge.tf1.contrib.opt_adam_variants import LazyAdamOptimizer, NadamOptimizer  # noqa: F401
from npu_bridge.tf1.contrib.opt_lars import LARSOptimizer  # noqa: F401
from npu_bridge.tf1.errors import not_provided_getattr


class DecoupledWeightDecayExtension:
    """Mixin: decay each variable by ``weight_decay * var`` before the base update."""

    def __init__(self, weight_decay, **kwargs):
        self._weight_decay = weight_decay
        self._decay_var_list = None
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=1,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None, decay_var_list=None):
        self._decay_var_list = set(decay_var_list) if decay_var_list else None
        return super().minimize(loss, global_step=global_step, var_list=var_list,
                                gate_gradients=gate_gradients,
                                aggregation_method=aggregation_method,
                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                name=name, grad_loss=grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        if decay_var_list:
            self._decay_var_list = set(decay_var_list)
        return super().apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def _decay_weights(self, var):
        if self._decay_var_list is not None and var not in self._decay_var_list:
            return tf.no_op()
        decay = tf.cast(self._weight_decay() if callable(self._weight_decay)
                        else self._weight_decay, var.dtype.base_dtype)
        return var.assign_sub(decay * var, use_locking=self._use_locking)

    def _apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay_weights(var)]):
            return super()._apply_dense(grad, var)

    def _resource_apply_dense(self, grad, var):
        with tf.control_dependencies([self._decay_weights(var)]):
            return super()._resource_apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        with tf.control_dependencies([self._decay_weights(var)]):
            return super()._apply_sparse(grad, var)

    def _resource_apply_sparse(self, grad, var, indices):
        with tf.control_dependencies([self._decay_weights(var)]):
            return super()._resource_apply_sparse(grad, var, indices)


def extend_with_decoupled_weight_decay(base_optimizer):
    """``base_optimizer`` (a tf.compat.v1.train.Optimizer class) with decoupled weight decay."""

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay, *args, **kwargs):
            DecoupledWeightDecayExtension.__init__(self, weight_decay)
            base_optimizer.__init__(self, *args, **kwargs)

    OptimizerWithDecoupledWeightDecay.__name__ = base_optimizer.__name__ + "W"
    return OptimizerWithDecoupledWeightDecay


class AdamWOptimizer(DecoupledWeightDecayExtension, tf.compat.v1.train.AdamOptimizer):
    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2,
                         epsilon=epsilon, use_locking=use_locking, name=name)


class MomentumWOptimizer(DecoupledWeightDecayExtension, tf.compat.v1.train.MomentumOptimizer):
    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False,
                 name="MomentumW", use_nesterov=False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum,
                         use_locking=use_locking, name=name, use_nesterov=use_nesterov)


__getattr__ = not_provided_getattr(
    "tf.contrib.opt",
    instead={"MovingAverageOptimizer": "tf.train.ExponentialMovingAverage over the variables "
                                       "after each step (ema.apply in a control dependency)"})
