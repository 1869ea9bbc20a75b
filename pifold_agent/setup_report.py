"""What the set-up tells the user: why it refused, in one line, and what it worked around.

The set-up (:mod:`pifold_agent.run_setup`) and the app's start-up turn whatever stopped them
(the session locked by another writer, a damaged fold log, a store or engine error, a file
out of place) into one line naming the session's engine state and the command that says
more (``pifold doctor``), never a traceback: a :class:`~pifold_agent.run_input.CommandError`
of :func:`setup_failure`'s words (:func:`one_line` and :func:`flatten` keep any message on one
line, for the same reason). What the open found damaged but could work around (a torn log
tail, an unused checkpoint, a damaged object in the store) and what is loose about the
user's settings and models files are notices the run goes on with (:func:`state_notices`,
:func:`configuration_notices`), each saying its consequence.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pifold_agent.providers.models import models_file
from pifold_agent.run_input import CommandError
from pifold_agent.sessions import SessionError, SessionFile, state_directory
from pifold_core.config_file import loose_warning
from pifold_core.engine import Engine, EngineError, SessionLocked
from pifold_core.journal import JournalCorrupt
from pifold_core.settings import SettingsError, SettingsFile
from pifold_core.store import StoreError


def state_notices(engine: Engine) -> list[str]:
    """What the open found damaged but could work around, each with its consequence."""
    notices = []
    doctor = f"`pifold doctor {engine.state_dir} --repair`"
    if engine.view.torn_tail is not None:
        notices.append(
            f"the fold log's last line, {engine.view.torn_tail.describe()}, was torn (a write cut "
            "short) and was cut off; nothing before it is lost, and the session file gives "
            "back its message"
        )
    if engine.view.checkpoint_problem is not None:
        notices.append(
            f"the checkpoint was not used ({flatten(engine.view.checkpoint_problem)}); "
            "the session was rebuilt from its log instead"
        )
    damaged = engine.status().damaged
    if damaged:
        first = damaged[0]
        more = f" and {len(damaged) - 1} more" if len(damaged) > 1 else ""
        notices.append(
            f"{first.kind} {first.id} is {first.problem} in the store{more}: the session runs, "
            f"but it cannot be peeked or expanded; {doctor} rebuilds a fold's object from the log"
        )
    return notices


def configuration_notices() -> list[str]:
    """What is loose about the user's settings and models files (read anyway: see
    :mod:`pifold_core.config_file`), as warning lines."""
    notices = []
    settings = SettingsFile()
    with contextlib.suppress(SettingsError):  # a refused file is refused where it is loaded
        settings.load()
    if settings.warning is not None:
        notices.append(f"settings file {settings.warning}")
    path = models_file()
    try:
        status = os.stat(path)
    except OSError:
        return notices  # missing: nothing to say; unreadable: said where it is loaded
    warning = loose_warning(path, status)
    if warning is not None:
        notices.append(f"models file {warning}")
    return notices


def flatten(text: str) -> str:
    """``text`` on one line: every run of white space one space."""
    return " ".join(text.split())


def one_line(error: BaseException) -> str:
    """An exception's message on one line (an OS error with its file named)."""
    if isinstance(error, OSError) and error.strerror:
        text = f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    else:
        text = str(error) or type(error).__name__
    return flatten(text)


def setup_failure(
    error: Exception, session: SessionFile | None, state_dir: Path | None = None
) -> str:
    """One line saying why a session could not be opened for a run, and what to do."""
    if isinstance(error, CommandError | SettingsError | SessionError):
        return one_line(error)
    if state_dir is None and session is not None:
        state_dir = state_directory(session.path)
    state = f"the session's engine state {state_dir}" if state_dir else "the engine state"
    doctor = f"pifold doctor {state_dir}" if state_dir else "pifold doctor STATE"
    if isinstance(error, SessionLocked):  # another writer of the engine alone (a repair)
        return f"cannot open {state}: {one_line(error)}"
    if isinstance(error, JournalCorrupt):
        return (
            f"the session's fold log is damaged, so it is not opened: {one_line(error)}; "
            f"`{doctor}` says what is damaged and `--repair` repairs what can be (or move the "
            "folder aside: the session file holds every message, and a new state is built "
            "from it)"
        )
    if isinstance(error, StoreError | EngineError | ValueError | RuntimeError):
        return f"cannot open {state}: {one_line(error)}; `{doctor}` says what is damaged"
    if isinstance(error, OSError):
        return f"cannot open {state}: {one_line(error)}"
    return (
        f"cannot open {state}: unexpected {type(error).__name__}: {one_line(error)} "
        "(a bug in pifold: please report it)"
    )


__all__ = [
    "configuration_notices",
    "flatten",
    "one_line",
    "setup_failure",
    "state_notices",
]
