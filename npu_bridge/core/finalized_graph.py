"""Work on a graph's final form, done on a thread as soon as the graph is finalised.

The checkpoint saver needs one GraphDef of the finalised graph as its session
starts (its digest, graph.pbtxt, the graph records, the ``.meta`` files).
Making it is Python work that grows with the graph: 0.26 s for bench_startup's
250-variable model in one process on the 2-core machine, 0.69 s on a rank
sharing the machine with another (December 2026). The graph is final earlier
than the hooks learn of it: the scaffold finalises it, then the session is
created, the variables are initialised or restored and, with ranks, broadcast
(mostly C++ work, which leaves the GIL free), and only then are the hooks'
``after_create_session`` called. With ranks this matters twice: after the
broadcast the chief alone does a checkpoint saver's session start while the
other ranks wait for it in their first collective.

``AheadOfSession(graph, work)`` runs ``work(graph)`` on a daemon thread once
``graph.finalized`` (no hook is called at finalisation, so the thread looks
every 10 ms; it gives up after a minute without it, or when the graph is
gone). ``result()`` returns what the thread made, waiting for it if it is
under way, or runs ``work`` in place if the thread has not begun or failed,
so the result is the same either way. At exit, a thread still working is
waited for (TensorFlow must not be torn down under it).
"""

import atexit
import threading
import time
import weakref

_POLL_SECONDS = 0.01
_GIVE_UP_SECONDS = 60.0
_working = set()  # threads computing now, joined at exit
_working_lock = threading.Lock()
_exiting = []  # non-empty once the interpreter exits: no work starts then


class AheadOfSession(object):
    """``work(graph)``, done on a thread once ``graph`` is finalised; ``result()`` gives it."""

    def __init__(self, graph, work):
        self._graph = weakref.ref(graph)
        self._work = work
        self._cancel = threading.Event()
        self._made = None  # (result,) once the thread made it
        self._thread = threading.Thread(target=self._run, name="npu_bridge-finalized-graph",
                                        daemon=True)
        self._thread.start()

    def _run(self):
        deadline = time.monotonic() + _GIVE_UP_SECONDS
        while True:
            graph = self._graph()
            if graph is None or time.monotonic() > deadline:
                return
            if graph.finalized:
                break
            del graph
            if self._cancel.wait(_POLL_SECONDS):
                return
        with _working_lock:
            if self._cancel.is_set() or _exiting:
                return
            _working.add(threading.current_thread())
        try:
            self._made = (self._work(graph),)
        except Exception:  # pylint: disable=broad-except
            pass  # result() runs the work in place and raises there
        finally:
            with _working_lock:
                _working.discard(threading.current_thread())

    def result(self):
        """What ``work(graph)`` returns, made ahead if the thread got to it."""
        self._cancel.set()
        self._thread.join()
        if self._made is not None:
            return self._made[0]
        graph = self._graph()
        if graph is None:
            raise RuntimeError("the graph given to AheadOfSession no longer exists")
        return self._work(graph)


def _wait_for_work_under_way():
    with _working_lock:
        _exiting.append(True)
        threads = list(_working)
    for thread in threads:
        thread.join()


atexit.register(_wait_for_work_under_way)
