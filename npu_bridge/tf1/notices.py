"""One warning per subject and process, for what the TF1 mode maps with a changed meaning.

The TF1 mode gives some names of TF 1.15's time a meaning that differs from
today's (``np.float`` as the builtin ``float``, ``multi_gpu_model`` as the
model itself).  The first use says so as a ``TF1ModeWarning``, shown by
Python's default warning filters; later uses are silent.
"""

import threading
import warnings


class TF1ModeWarning(UserWarning):
    """What the TF1 mode maps with the meaning of TF 1.15's time."""


_lock = threading.Lock()
_warned = set()


def warn_once(subject, message, stacklevel=3):
    """Warns ``message`` the first time ``subject`` is named in this process."""
    with _lock:
        if subject in _warned:
            return
        _warned.add(subject)
    warnings.warn(message, TF1ModeWarning, stacklevel=stacklevel)
