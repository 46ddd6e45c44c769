"""Debugging a migrated script on CPU/GPU: op dumps, overflow detection, profiles.

``DumpConfig`` and ``ProfilingConfig`` (in ``npu_bridge.core.config``) switch
these on; NPUEstimator then adds the hooks built here to training. Nothing is
added when they are off, so a normal run pays nothing.

* ``step_ranges``: the original's step syntax ("0|5|10-20").
* ``capture``: one ``Session.run`` watched by TensorFlow's own debugger (tfdbg
  v1: RunOptions debug watches, file:// dumps read back with ``DebugDumpDir``),
  turned into ops in execution order with their inputs and outputs.
* ``watched_steps``: a hook base that captures the runs of named steps.
* ``layout``: how a captured step is written (.npy per op and slot, plus
  ``index.json``) and read back.
* ``dump``: the op-dump hook (``enable_dump``).
* ``overflow``: the inf/nan hook (``enable_dump_debug``, ``enable_exception_dump``).
* ``compare``: ``npu-bridge-dump-compare DIR_A DIR_B``, where two dumps part ways.
* ``profile``: TensorFlow's profiler over a step window, for TensorBoard.
* ``estimator_hooks``: which of these hooks a run config asks for.

With the device loop (iterations_per_loop > 1) a dumped or checked step runs
as its own single-step ``Session.run``: ``estimator_hooks.single_steps`` goes
into the train() call's loop plan, whose runs are cut there, so each dump
holds exactly one step. Profiles do not cut runs: they trace the runs as they really happen.
See docs/debugging.md.
"""
