"""A second process that holds a session open for writing, for the lock tests.

``python -m tests.core.lock_holder STATE ROUNDS`` opens ``STATE`` for writing, prints
``ready <pid>``, then for each round appends a user message, prepares a request and appends
the answer, printing ``round <n> <entries>`` after each. It then waits for a line on stdin
(``close``: close the engine and exit 0) or to be killed. Every line is flushed at once, so
the parent can act on exactly what the holder has done.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pifold_core.engine import Engine
from tests.core.builders import CharCounter, SessionBuilder, filler, small_options


def hold(state: Path, rounds: int) -> None:
    """Open ``state``, write ``rounds`` exchanges, then wait to be told to close."""
    engine = Engine.open(state, small_options(budget=200_000), CharCounter())
    print(f"ready {os.getpid()}", flush=True)
    session = SessionBuilder(prefix=f"p{os.getpid()}-")
    for number in range(rounds):
        engine.append(session.user(f"question {number}: " + filler(300, seed=number)))
        engine.prepare_request()
        engine.append(session.assistant(f"answer {number}"))
        print(f"round {number} {len(engine.view.transcript)}", flush=True)
    if sys.stdin.readline().strip() == "close":
        engine.close()


if __name__ == "__main__":
    hold(Path(sys.argv[1]), int(sys.argv[2]))
