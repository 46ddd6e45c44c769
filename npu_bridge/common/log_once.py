"""Logging a message once per process, whoever asks for it and from which thread.

Options that have no effect here, the cluster layout, the mixed-precision
hardware choice: each is worth one line in a log, not one per call.
"""

import threading

_lock = threading.Lock()
_seen = set()


def first_time(keys):
    """The keys of ``keys`` not seen before, sorted; they count as seen from now on."""
    with _lock:
        new = sorted(set(keys) - _seen)
        _seen.update(new)
    return new


def log_once(key, logger, level, message, *args):
    """Logs ``message % args`` at ``level`` the first time ``key`` is seen; True if it logged."""
    if not first_time([key]):
        return False
    logger.log(level, message, *args)
    return True


def has_logged(key):
    """True once ``key`` was seen by ``log_once`` or ``first_time``."""
    return key in _seen


def forget(keys):
    """Make ``keys`` count as not seen (tests that check a message is logged once)."""
    with _lock:
        _seen.difference_update(keys)
