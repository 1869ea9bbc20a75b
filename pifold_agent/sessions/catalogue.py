"""Finding sessions: list a project's, the newest for ``--continue``, an id prefix for
``--resume``, or a path.

A prefix is looked up among the working directory's sessions first and then across every
project, as Pi does; more than one match is an error that lists them, so the user can type a
longer prefix. A file that is not a session (no header and no entry) is left out of lists.

A session that cannot be read at all (unreadable, a folder or a FIFO where its file should
be) is left out of lists too, but never silently passed over by ``--continue`` or
``--resume``: when it is the newest of the directory, or its name holds the id asked for,
the refusal names it and says why, rather than continuing another session.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.sessions.errors import SessionError
from pifold_agent.sessions.paths import SESSION_SUFFIX, project_directory, sessions_root
from pifold_agent.sessions.reading import kind_of
from pifold_agent.sessions.session_file import SessionFile


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """One session as a list shows it."""

    path: Path
    """The session file."""
    id: str
    """The session's uuid."""
    cwd: str
    """Where it was created."""
    created: str
    """The header's ISO timestamp."""
    modified_ns: int
    """The file's modification time, in nanoseconds."""
    messages: int
    """Messages on the current branch."""
    first_message: str
    """The first user message's text, cut to 80 characters."""


def _summary_of(path: Path) -> SessionSummary | None:
    try:
        session = SessionFile.open(path)
        modified = path.stat().st_mtime_ns
    except (SessionError, OSError):
        return None
    messages = session.messages()
    first = next((entry.text for entry in messages if entry.kind == "user"), "")
    return SessionSummary(
        path=path,
        id=session.id,
        cwd=session.cwd,
        created=str(session.header.get("timestamp", "")),
        modified_ns=modified,
        messages=len(messages),
        first_message=" ".join(first.split())[:80],
    )


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.glob(f"*{SESSION_SUFFIX}") if path.is_file())


def _project_folders(root: Path) -> list[Path]:
    return sorted(folder for folder in root.iterdir() if folder.is_dir()) if root.is_dir() else []


def _unreadable(folder: Path) -> list[tuple[int, Path, str]]:
    """``(modified ns, path, why)`` of every name of a session in ``folder`` that cannot be
    read as a file (only looked at: nothing is opened)."""
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob(f"*{SESSION_SUFFIX}"):
        try:
            status = path.stat()
            if stat.S_ISREG(status.st_mode):
                if os.access(path, os.R_OK):
                    continue
                why = "permission denied"
            else:
                why = kind_of(status.st_mode)
        except OSError as error:
            status, why = path.lstat(), str(error.strerror or error)
        found.append((status.st_mtime_ns, path, why))
    return found


def list_sessions(
    cwd: Path | None = None, sessions_dir: Path | None = None
) -> list[SessionSummary]:
    """The sessions of ``cwd`` (of every project when None), newest modified first."""
    if cwd is not None:
        paths = _files(project_directory(cwd, sessions_dir))
    else:
        folders = _project_folders(sessions_root(sessions_dir))
        paths = [path for folder in folders for path in _files(folder)]
    summaries = [summary for path in paths if (summary := _summary_of(path)) is not None]
    summaries.sort(key=lambda summary: (summary.modified_ns, summary.path.name), reverse=True)
    return summaries


def latest_for(cwd: Path, sessions_dir: Path | None = None) -> SessionFile | None:
    """The most recently modified session of ``cwd`` (``--continue``), or None.

    Raises:
        SessionError: the newest session of ``cwd`` cannot be read (it is named, with why).
    """
    sessions = list_sessions(cwd, sessions_dir)
    broken = max(_unreadable(project_directory(cwd, sessions_dir)), default=None)
    if broken is not None and (not sessions or broken[0] > sessions[0].modified_ns):
        raise SessionError(
            f"the newest session of {cwd}, {broken[1]}, cannot be read: {broken[2]}; fix or "
            "move it aside, or pick another with --resume ID"
        )
    return SessionFile.open(sessions[0].path) if sessions else None


def find(id_prefix: str, cwd: Path | None = None, sessions_dir: Path | None = None) -> SessionFile:
    """The session whose id starts with ``id_prefix`` (``--resume``): ``cwd``'s sessions
    first, then every project's.

    Raises:
        SessionError: no session matches, or several do (they are named).
    """
    prefix = id_prefix.strip().lower()
    if not prefix:
        raise SessionError("a session id prefix must not be empty")
    scopes = ([cwd] if cwd is not None else []) + [None]
    for scope in scopes:
        matches = [
            summary
            for summary in list_sessions(scope, sessions_dir)
            if summary.id.lower().startswith(prefix)
        ]
        if len(matches) == 1:
            return SessionFile.open(matches[0].path)
        if len(matches) > 1:
            named = ", ".join(f"{match.id} ({match.cwd})" for match in matches[:5])
            raise SessionError(
                f"session id prefix {id_prefix!r} matches {len(matches)} sessions: {named}; "
                "type more of the id"
            )
    root = sessions_root(sessions_dir)
    for folder in _project_folders(root):
        for _, path, why in sorted(_unreadable(folder)):
            if path.stem.rpartition("_")[2].lower().startswith(prefix):
                raise SessionError(f"session {path.name} cannot be read: {why}")
    raise SessionError(f"no session id starts with {id_prefix!r} in {root}")


def open_session(
    reference: str, cwd: Path | None = None, sessions_dir: Path | None = None
) -> SessionFile:
    """A session named by a path to its file or by an id prefix.

    Raises:
        SessionError: the file is unreadable or not a session, or the id matches no session
            or several.
    """
    candidate = Path(reference).expanduser()
    if reference.endswith(SESSION_SUFFIX) or candidate.is_file():
        if not candidate.is_file():
            raise SessionError(f"no session file at {candidate}")
        return SessionFile.open(candidate)
    return find(reference, cwd, sessions_dir)


__all__ = ["SessionSummary", "find", "latest_for", "list_sessions", "open_session"]
