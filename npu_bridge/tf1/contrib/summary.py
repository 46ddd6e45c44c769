"""``tf.contrib.summary``: TF 1.15's graph-mode summary API, still in TF 2.15's ``summary_ops_v2``.

``create_file_writer(logdir, max_queue, flush_millis, filename_suffix)``,
``always_record_summaries``, ``never_record_summaries``,
``record_summaries_every_n_global_steps``, ``scalar/image/histogram/audio/
generic(name, tensor, family=None, step=None)`` (step defaults to the global
step), ``all_summary_ops``, ``flush``, ``initialize``,
``summary_writer_initializer_op``, ``graph``, ``import_event``,
``eval_dir`` are TensorFlow's own functions, the ones contrib re-exported.
``create_file_writer`` builds its writer in the outermost graph
(``tf.init_scope``), as TF 1.15 did when TPUEstimator called host_call
outside any loop: NPUEstimator calls ``fn`` inside its host loop, and the
writer's init op must be runnable when the session starts.  The host loop
initialises and flushes these writers (see README, host_call).  ``step=None``
means the global step variable's current value, which inside a host_call
can be ahead of the record's step: pass ``step=`` from the record.  ``create_db_writer`` (the
SQLite writer) is not provided.
"""

import tensorflow as tf
from tensorflow.python.ops import summary_ops_v2 as _ops

from npu_bridge.tf1.errors import not_provided_getattr

SummaryWriter = _ops.SummaryWriter
all_summary_ops = _ops.all_v2_summary_ops
always_record_summaries = _ops.always_record_summaries
audio = _ops.audio


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None):
    """TF 1.15's contrib writer (``SummaryWriter``), created in the outermost graph."""
    with tf.init_scope():
        return _ops.create_file_writer(logdir, max_queue=max_queue, flush_millis=flush_millis,
                                       filename_suffix=filename_suffix, name=name)


create_summary_file_writer = create_file_writer
eval_dir = _ops.eval_dir
flush = _ops.flush
generic = _ops.generic
graph = _ops.graph
histogram = _ops.histogram
image = _ops.image
import_event = _ops.import_event
initialize = _ops.initialize
never_record_summaries = _ops.never_record_summaries
record_summaries_every_n_global_steps = _ops.record_summaries_every_n_global_steps
scalar = _ops.scalar
should_record_summaries = _ops.should_record_summaries
summary_writer_initializer_op = _ops.summary_writer_initializer_op

__getattr__ = not_provided_getattr("tf.contrib.summary")
