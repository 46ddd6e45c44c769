"""npu_bridge on stock TensorFlow: the Ascend adapter's Estimator API for CPU and GPU.

The public paths of the original adapter (``npu_bridge.npu_init``,
``npu_bridge.estimator.npu.npu_estimator``, ``npu_bridge.hccl.hccl_ops``,
``hccl.manage.api`` ...) are shims that only re-export; the code lives in
folders named after what they do:

* ``common``: argument checks and log-once, used everywhere;
* ``tf_private``: TensorFlow's private API, one module per TensorFlow area;
* ``distributed``: ranks on TensorFlow's collective runtime (cluster
  discovery and launching, collectives, optimizers, Estimator and Session
  support);
* ``tf1``: the TF1 run mode (``npu-bridge-run``) and ``tf.contrib``;
* ``mixed_precision``: loss scaling and precision_mode;
* ``device_loop``: the loop plan, the N-step loop, its hooks and the
  host_call outfeed;
* ``debugging``: op dumps, overflow checks, profiles;
* ``core``: NPUEstimatorSpec, NPURunConfig and the sessions it starts,
  NPUEstimator;
* ``migration``: the helpers Ascend's migration tool writes into scripts;
* ``migration_check``: ``npu-bridge-check``;
* ``launch``, ``run``, ``demo``: the commands.

Layers, from the top down. A module imports only from its own layer and the
layers below it, function-level imports included, and no import cycle exists
(``tests/test_import_layers.py`` holds the package to this list):

  8. commands: demo, launch, run, migration_check
  7. original paths: npu_init, estimator, hccl, helper, npu_cpu
  6. script helpers: migration
  5. estimator: core
  4. watching runs: debugging
  3. running steps: device_loop
  2. concepts below the estimator: distributed, mixed_precision, tf1
  1. foundations: common, tf_private

``hccl`` stands for both ``npu_bridge.hccl`` and the top-level ``hccl``
package shipped beside it. Importing the package changes nothing in the
process; the migration paths' one side effect is ``npu_init``'s
``migration.process_setup.set_up_ranks()`` (see there).
"""

__version__ = "0.1.0"
