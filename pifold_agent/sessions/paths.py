"""Where sessions live: ``~/.pifold/sessions/<project>/<timestamp>_<uuid>.jsonl``.

``PIFOLD_HOME`` replaces ``~/.pifold`` (tests use it), and every function takes an explicit
sessions directory for a ``--sessions-dir`` style option. A project directory is named after
the working directory the way Pi names it: the leading separator dropped, every ``/``, ``\\``
and ``:`` turned into ``-``, the whole wrapped in ``--``, so ``/srv/work/proj`` becomes
``--srv-work-proj--``. The engine's state folder sits beside its session file, named after the
file's stem with ``.pi-fold`` appended. Folders are created 0700 and files 0600: a session
holds everything the user and the model said.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

HOME_VARIABLE = "PIFOLD_HOME"
"""The environment variable that replaces ``~/.pifold``."""

SESSION_SUFFIX = ".jsonl"
"""Every session file's extension."""

STATE_SUFFIX = ".pi-fold"
"""Appended to a session file's stem to name the engine's state folder beside it."""

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600


def pifold_home() -> Path:
    """``$PIFOLD_HOME``, or ``~/.pifold``."""
    configured = os.environ.get(HOME_VARIABLE)
    return Path(configured).expanduser() if configured else Path.home() / ".pifold"


def sessions_root(sessions_dir: Path | None = None) -> Path:
    """The folder holding every project's sessions (``sessions_dir`` when given)."""
    return sessions_dir if sessions_dir is not None else pifold_home() / "sessions"


def project_name(cwd: Path) -> str:
    """The folder name of a working directory's sessions (Pi's scheme)."""
    text = str(cwd.resolve())
    text = text.lstrip("/\\")
    for separator in ("/", "\\", ":"):
        text = text.replace(separator, "-")
    return f"--{text}--"


def project_directory(cwd: Path, sessions_dir: Path | None = None) -> Path:
    """The folder of ``cwd``'s sessions."""
    return sessions_root(sessions_dir) / project_name(cwd)


def session_file_name(session_id: str, timestamp_ms: int) -> str:
    """``<ISO timestamp with : and . as ->_<uuid>.jsonl``, so names sort by creation."""
    moment = datetime.fromtimestamp(timestamp_ms / 1000, tz=UTC)
    stamp = moment.strftime("%Y-%m-%dT%H-%M-%S-") + f"{timestamp_ms % 1000:03d}Z"
    return f"{stamp}_{session_id}{SESSION_SUFFIX}"


def state_directory(session_path: Path) -> Path:
    """The engine's state folder for a session file (not created here)."""
    return session_path.with_name(session_path.stem + STATE_SUFFIX)


def make_private_directory(path: Path) -> Path:
    """Create ``path`` and its missing parents as 0700 folders; returns ``path``.

    The mode is set explicitly because the umask may have widened or narrowed it.
    """
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    path.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
    for created in missing:
        os.chmod(created, DIRECTORY_MODE)
    return path


__all__ = [
    "DIRECTORY_MODE",
    "FILE_MODE",
    "HOME_VARIABLE",
    "SESSION_SUFFIX",
    "STATE_SUFFIX",
    "make_private_directory",
    "pifold_home",
    "project_directory",
    "project_name",
    "session_file_name",
    "sessions_root",
    "state_directory",
]
