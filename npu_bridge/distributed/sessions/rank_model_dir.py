"""Which rank writes checkpoints into which model_dir.

Ranks that share one model_dir must write it once, or their checkpoints and
exports race. A rank whose model_dir is its own (``model_dir=.../r<rank>`` as
``srun`` scripts write it, the default temporary model_dir, or one path on each
machine's local disk) must keep its own checkpoints there, or its evaluate(),
predict(), export and get_variable_value() after train() find nothing. The
rule: **the lowest rank among those that share a folder writes it**; with one
shared model_dir that is rank 0, with one folder per rank every rank writes its
own (equal to rank 0's: the ranks' variables are equal).

"Shared" cannot be read off the path: the same path may be one folder on a
shared filesystem or one folder per machine on local disks, and two paths may be
one folder (a symlink). So it is observed, at the start of every train():

1. each rank writes a marker file with a fresh random token into
   ``<model_dir>/.npu_bridge/``;
2. the ranks gather their tokens (an off-graph all-gather, which is also the
   barrier between writing and looking);
3. each rank looks in its own model_dir for every other rank's marker: the
   ranks whose markers it sees share its folder.

A marker's name holds its token, so no file is ever overwritten and no cache
can hold an old answer for it (NFS makes a closed file visible to the next
open on another client). Markers are removed once every rank has looked: after
the next gather (``RankModelDir.confirm``), in which the ranks also learn that
every writer got its model_dir (``model_dir_lock``), so that they all start
training or all fail at once.
"""

import collections
import os

import tensorflow as tf

from npu_bridge.distributed.cluster import runtime
from npu_bridge.distributed.collectives import collectives

STATE_DIR = ".npu_bridge"  # npu_bridge's own files inside a model_dir

Placement = collections.namedtuple("Placement", ["writes", "writer", "sharing"])

_logged = set()


def _marker(folder, rank, token):
    return os.path.join(folder, "rank%d.%x" % (rank, token))


def _log_once(model_dir, placement, rank):
    """One line per model_dir and role and process: who writes the checkpoints there."""
    if (model_dir, placement) in _logged:
        return
    _logged.add((model_dir, placement))
    if not placement.writes:
        line = ("rank %d writes no checkpoints: its model_dir %s is rank %d's too, and "
                "rank %d writes it" % (rank, model_dir, placement.writer, placement.writer))
    elif len(placement.sharing) == 1:
        line = ("rank %d writes its own checkpoints into %s (no other rank shares that "
                "folder)" % (rank, model_dir))
    else:
        line = ("rank %d writes the checkpoints of ranks %s into %s (the folder they "
                "share)" % (rank, list(placement.sharing), model_dir))
    tf.compat.v1.logging.info("npu_bridge: %s", line)


class RankModelDir(object):
    """This rank's place among the ranks' model_dirs (a collective: every rank calls it).

    ``placement.writes``: whether this rank writes checkpoints to ``model_dir``;
    ``placement.writer``: the rank that does; ``placement.sharing``: the ranks
    whose model_dir is the same folder. Then call ``confirm`` on every rank.
    """

    def __init__(self, model_dir):
        info = runtime.rank_info()
        self._rank = info.rank_id
        self._mine = None
        if info.rank_size == 1:
            self.placement = Placement(True, 0, (0,))
            return
        folder = os.path.join(model_dir, STATE_DIR)
        tf.io.gfile.makedirs(folder)
        token = int.from_bytes(os.urandom(7), "big") or 1
        self._mine = _marker(folder, self._rank, token)
        with tf.io.gfile.GFile(self._mine, "w") as marker:
            marker.write("rank %d\n" % self._rank)
        tokens = collectives.gather_from_ranks(
            [token], "train()'s exchange of which ranks share model_dir")[:, 0]
        sharing = tuple(rank for rank in range(info.rank_size)
                        if rank == self._rank
                        or tf.io.gfile.exists(_marker(folder, rank, int(tokens[rank]))))
        self.placement = Placement(min(sharing) == self._rank, min(sharing), sharing)
        _log_once(model_dir, self.placement, self._rank)

    def confirm(self, error=None):
        """Every rank learns whether all are ready; raises ``error`` or a peer's failure.

        ``error``: the exception that keeps this rank from training (None: ready).
        """
        ready = collectives.gather_from_ranks(
            [int(error is None)], "train()'s check that every rank is ready")[:, 0]
        if self._mine is not None:
            try:
                tf.io.gfile.remove(self._mine)
            except tf.errors.NotFoundError:
                pass
        if error is not None:
            raise error
        failed = [rank for rank, ok in enumerate(ready) if not ok]
        if failed:
            raise RuntimeError(
                "rank(s) %s could not start training (their own error says why, e.g. "
                "their model_dir is held by another process); rank %d stops with them."
                % (failed, self._rank))
