"""Op dumps (``DumpConfig(enable_dump=True)``): every op's values at the named steps.

Each named step's run is captured by tfdbg (``capture``) and written in the
documented layout (``layout``): ``<dump_path>/step_<k>/<op>/output_<slot>.npy``
and/or ``input_<i>.npy`` per ``dump_mode``, and ``index.json``. Ops are those
of the whole training step: forward, gradients, optimizer updates, and what
hooks fetch in the same run.
"""

import tensorflow as tf

from npu_bridge.debugging import layout
from npu_bridge.debugging.watched_steps import WatchedStepsHook


class OpDumpHook(WatchedStepsHook):
    """Writes the ops of the steps in ``steps`` under ``dump_path``."""

    def __init__(self, dump_path, steps, mode="output", source=None):
        if mode not in layout.MODES:
            raise ValueError("dump_mode must be one of %s; got %r."
                             % (", ".join(layout.MODES), mode))
        super(OpDumpHook, self).__init__(steps, source)
        self._dump_path = dump_path
        self._mode = mode
        self.written = []  # step folders written, in order

    def on_capture(self, step, ops):
        directory = layout.step_dir(self._dump_path, step)
        index = layout.write_step(directory, step, ops, self._mode)
        self.written.append(directory)
        tf.compat.v1.logging.info("Dumped %d ops of step %d (%s) to %s",
                                  len(index["ops"]), step, self._mode, directory)
