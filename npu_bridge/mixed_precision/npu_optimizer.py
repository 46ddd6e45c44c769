"""NPUOptimizer: the original's all-in-one wrapper (gradient averaging + loss scaling)."""

import tensorflow as tf

from npu_bridge.mixed_precision import scaling
from npu_bridge.mixed_precision.loss_scale_optimizer import (
    DelegatingOptimizer, check_manager, check_optimizer, overflow_check_enabled)


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError("NPUOptimizer %s must be True or False; got %r." % (name, value))


class NPUOptimizer(DelegatingOptimizer):
    """Wraps a tf.compat.v1 optimizer.

    ``is_distributed``: average gradients over ranks (RANK_SIZE > 1) before
    they are unscaled and applied.  ``is_loss_scale``: scale the loss with
    ``loss_scale_manager`` and skip inf/nan steps, as NPULossScaleOptimizer.
    ``is_tailing_optimization`` only reorders Ascend's communication, so it
    is accepted and has no effect here.
    """

    def __init__(self, opt, loss_scale_manager=None, is_distributed=False,
                 is_loss_scale=False, is_tailing_optimization=False, name=None):
        check_optimizer("NPUOptimizer", opt)
        _check_bool("is_distributed", is_distributed)
        _check_bool("is_loss_scale", is_loss_scale)
        _check_bool("is_tailing_optimization", is_tailing_optimization)
        if is_loss_scale:
            if loss_scale_manager is None:
                raise ValueError("NPUOptimizer is_loss_scale=True needs a "
                                 "loss_scale_manager; got None.")
            check_manager("NPUOptimizer", loss_scale_manager)
        self._loss_scale_manager = loss_scale_manager
        self._is_distributed = is_distributed
        self._is_loss_scale = is_loss_scale
        self._is_tailing_optimization = is_tailing_optimization
        super(NPUOptimizer, self).__init__(
            opt, name=name or "NPUOptimizer%s" % type(opt).__name__)

    def compute_gradients(self, loss, var_list=None,
                          gate_gradients=tf.compat.v1.train.Optimizer.GATE_OP,
                          aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        loss_scale = None
        if self._is_loss_scale:
            loss_scale = self._loss_scale_manager.get_loss_scale()
            loss = scaling.scale_loss(loss, loss_scale)
        grads_and_vars = self._opt.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            grad_loss=grad_loss)
        if self._is_distributed:
            grads = scaling.average_across_ranks([g for g, _ in grads_and_vars])
            grads_and_vars = list(zip(grads, [v for _, v in grads_and_vars]))
        if self._is_loss_scale:
            grads_and_vars = scaling.unscale(grads_and_vars, loss_scale)
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)

        def apply_fn():
            return self._opt.apply_gradients(grads_and_vars, global_step, name)

        manager = self._loss_scale_manager
        if not self._is_loss_scale:
            return apply_fn()
        if not overflow_check_enabled(manager):
            return tf.group(apply_fn(), manager.update_loss_scale(True))
        finite = scaling.all_finite([g for g, _ in grads_and_vars])
        if self._is_distributed:
            finite = scaling.agree_across_ranks(finite)
        applied = scaling.apply_if(finite, apply_fn)
        return tf.group(applied.op, manager.update_loss_scale(finite), name=name)
