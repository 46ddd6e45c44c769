"""One answer per request in the resolver process: does the name exist, work, accept the call.

A name is obtained as script code obtains it (``resolve``); if it exists and
is a function or class, its code is read for module-level names that fail
(``code_reach``); a call's arguments are put to the callee (``call_check``).
Reading code or arguments that cannot be decided reports nothing: only a
failure the check can name is an answer.
"""

from npu_bridge.migration_check import call_check, code_reach, resolve
from npu_bridge.migration_check.lookup import from_json


class Answers:
    """Answers to requests (JSON dicts), each function's code read once."""

    def __init__(self):
        self.reach_cache = {}

    def __call__(self, request):
        lookup, call = from_json(request)
        try:
            obj, complete = resolve.obtain(lookup)
        except resolve.Failure as failure:
            return dict(status="missing", missing=failure.missing,
                        **resolve.error_fields(failure.error))
        if not complete:
            return {"status": "ok"}
        if call is not None:
            return self._call(obj, call)
        try:
            broken = code_reach.failing_reference(obj, self.reach_cache)
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: B036 (reading code is best effort)
            broken = None
        if broken is None:
            return {"status": "ok"}
        reason, error_types = broken
        return {"status": "broken", "reason": " ".join(reason.split()),
                "error_types": error_types}

    def _call(self, obj, call):
        try:
            rejected = call_check.rejection(obj, call)
        except KeyboardInterrupt:
            raise
        except BaseException:  # noqa: B036 (a check that cannot decide reports nothing)
            rejected = None
        if rejected is None:
            return {"status": "ok"}
        how, error = rejected
        return dict(status="rejected", how=how, **resolve.error_fields(error))
