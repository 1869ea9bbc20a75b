"""The engine's refusals: what every verb raises when it changes nothing."""

from __future__ import annotations


class EngineError(ValueError):
    """A request to the engine is invalid; nothing was changed. The message says why."""


class SessionLocked(EngineError):
    """Another open of the session (in this process or another) is writing it: one writer
    per session. The message names the folder and the holder's pid."""


class ReadOnlySession(EngineError):
    """A verb that would change the session, on an engine opened with ``read_only``."""
