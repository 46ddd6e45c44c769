"""NPUEstimatorSpec: an EstimatorSpec that also carries a host_call."""

import tensorflow as tf

from npu_bridge.device_loop.host_call import validate_host_call


class NPUEstimatorSpec(tf.estimator.EstimatorSpec):
    """EstimatorSpec plus ``host_call=(fn, tensors)``.

    ``tensors`` (a list/tuple, passed to fn positionally, or a dict, passed by
    keyword) are computed on the device every TRAIN and EVAL step and handed to
    ``fn`` on the host, which typically writes summaries. A plain Estimator
    accepts this spec too and simply ignores host_call.
    """

    def __new__(cls, mode, predictions=None, loss=None, train_op=None,
                eval_metric_ops=None, export_outputs=None,
                training_chief_hooks=None, training_hooks=None, scaffold=None,
                evaluation_hooks=None, prediction_hooks=None, host_call=None):
        validate_host_call(host_call)
        spec = super(NPUEstimatorSpec, cls).__new__(
            cls, mode=mode, predictions=predictions, loss=loss,
            train_op=train_op, eval_metric_ops=eval_metric_ops,
            export_outputs=export_outputs,
            training_chief_hooks=training_chief_hooks,
            training_hooks=training_hooks, scaffold=scaffold,
            evaluation_hooks=evaluation_hooks,
            prediction_hooks=prediction_hooks)
        spec._host_call = host_call
        return spec

    @property
    def host_call(self):
        # Instances made by namedtuple's _make (as _replace does) skip __new__.
        return self.__dict__.get("_host_call")

    def _replace(self, **kwds):
        host_call = kwds.pop("host_call", self.host_call)
        fields = self._asdict()
        fields.update(kwds)
        return NPUEstimatorSpec(host_call=host_call, **fields)
