"""NPULossScaleOptimizer: loss scaling around any tf.compat.v1 optimizer."""

import tensorflow as tf

from npu_bridge.mixed_precision import scaling
from npu_bridge.mixed_precision.loss_scale_manager import FixedLossScaleManager


def check_optimizer(owner, opt):
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise TypeError("%s opt must be a tf.compat.v1.train.Optimizer; got %s."
                        % (owner, type(opt).__name__))


def check_manager(owner, manager):
    for method in ("get_loss_scale", "update_loss_scale"):
        if not callable(getattr(manager, method, None)):
            raise TypeError("%s loss_scale_manager must have get_loss_scale() and "
                            "update_loss_scale(); got %s."
                            % (owner, type(manager).__name__))


def overflow_check_enabled(manager):
    """A FixedLossScaleManager may switch the inf/nan skip off; others never do."""
    if isinstance(manager, FixedLossScaleManager):
        return manager.get_enable_overflow_check()
    return True


class DelegatingOptimizer(tf.compat.v1.train.Optimizer):
    """Forwards slots, variables and unknown attributes to the wrapped optimizer."""

    def __init__(self, opt, name):
        self._opt = opt
        super(DelegatingOptimizer, self).__init__(use_locking=False, name=name)

    def __getattr__(self, attr):
        if attr == "_opt":  # not set yet: avoid infinite recursion
            raise AttributeError(attr)
        return getattr(self._opt, attr)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self, *args, **kwargs):
        return self._opt.variables(*args, **kwargs)


class NPULossScaleOptimizer(DelegatingOptimizer):
    """Scales the loss up before backprop and the gradients down before apply.

    A step whose gradients hold inf/nan is skipped entirely (variables and
    global step unchanged) and reported to the loss scale manager, which may
    shrink the scale.  With ``is_distributed=True`` and RANK_SIZE > 1 the
    skip decision is agreed across ranks, so replicas never diverge.
    """

    def __init__(self, opt, loss_scale_manager, is_distributed=False):
        check_optimizer("NPULossScaleOptimizer", opt)
        check_manager("NPULossScaleOptimizer", loss_scale_manager)
        if not isinstance(is_distributed, bool):
            raise TypeError("NPULossScaleOptimizer is_distributed must be True or "
                            "False; got %r." % (is_distributed,))
        self._loss_scale_manager = loss_scale_manager
        self._is_distributed = is_distributed
        super(NPULossScaleOptimizer, self).__init__(
            opt, name="NPULossScaleOptimizer%s" % type(opt).__name__)

    def compute_gradients(self, loss, var_list=None,
                          gate_gradients=tf.compat.v1.train.Optimizer.GATE_OP,
                          aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        loss_scale = self._loss_scale_manager.get_loss_scale()
        grads_and_vars = self._opt.compute_gradients(
            scaling.scale_loss(loss, loss_scale), var_list=var_list,
            gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss)
        return scaling.unscale(grads_and_vars, loss_scale)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)

        def apply_fn():
            return self._opt.apply_gradients(grads_and_vars, global_step, name)

        if not overflow_check_enabled(self._loss_scale_manager):
            return tf.group(apply_fn(),
                            self._loss_scale_manager.update_loss_scale(True))
        finite = scaling.all_finite([g for g, _ in grads_and_vars])
        if self._is_distributed:
            finite = scaling.agree_across_ranks(finite)
        applied = scaling.apply_if(finite, apply_fn)
        return tf.group(applied.op, self._loss_scale_manager.update_loss_scale(finite),
                        name=name)
