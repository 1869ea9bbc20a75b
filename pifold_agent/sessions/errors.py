"""What opening, finding or writing a session can refuse with."""

from __future__ import annotations

from pathlib import Path

from pifold_core.lock import LockHolder


class SessionError(RuntimeError):
    """A session cannot be created, opened or found; the message says which and why."""


class SessionBusy(SessionError):
    """Another writer holds the session: one writer per session file, whatever the mode
    (folding, ``--no-fold``, the app, a headless run). The message names the session, its
    file and, when known, the process holding it."""

    def __init__(self, session_id: str, path: Path, holder: LockHolder) -> None:
        super().__init__(
            f"session {session_id} ({path}) is open for writing by {holder.describe()}: one "
            "writer per session; wait for that run to end or close it, then try again"
        )
        self.path = path
        """The session file."""
        self.holder = holder
        """Who holds it, as far as it said."""


__all__ = ["SessionBusy", "SessionError"]
