"""The resolver process: the TF1 mode switched on, answering lookups as a script would see them.

Activating the TF1 mode cannot be undone in a process, so the check starts
this one (``python -m npu_bridge.migration_check.resolver``) once per run;
it activates the mode exactly as ``npu-bridge-run`` does, so what the mode
provides is decided by the mode itself and never by a second list.  It then
reads one JSON request per line and writes one JSON answer per line, in
order:

- a name (``{"binding", "attrs"}``): ``{"status": "ok"}``, ``{"status":
  "missing", "missing": dotted, "error", "error_types"}`` or, when it exists
  but its code reaches a name that fails (``code_reach``), ``{"status":
  "broken", "reason", "error_types"}``;
- a call (the same plus ``"call"``): ``{"status": "ok"}`` or ``{"status":
  "rejected", "how": "signature" | "call", "error", "error_types"}``.

Its first line is ``{"ready": true}`` once the mode is on.  Whatever modules
print while they are imported goes to stderr: the protocol has stdout (and
stdin) to itself.  It works in an empty folder the client gives it, so a
constructor that writes a file writes it there.  Hangs and crashes of a
lookup are the client's to bound (``resolver_client``).
"""

import json
import os
import sys


def _protocol_streams():
    """(requests, answers): private copies of stdin/stdout; fd 0 and 1 no longer reach them."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr
    return requests, answers


def main():
    requests, replies = _protocol_streams()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    # Imported only now, so that nothing TensorFlow prints reaches the protocol.
    from npu_bridge.migration_check.answer import Answers
    from npu_bridge.tf1 import mode
    mode.activate()
    answer = Answers()
    replies.write(json.dumps({"ready": True}) + "\n")
    for line in requests:
        replies.write(json.dumps(answer(json.loads(line))) + "\n")


if __name__ == "__main__":
    main()
