"""Reading a session file's bytes and splitting them into a header and entry lines.

Reading never trusts what stands at the path: a FIFO would block the open and a device never
ends, so anything but a regular file is refused from its status, before any open; the open
itself does not wait (``O_NONBLOCK``), should a FIFO replace the file after the check. A line
that holds no entry (torn, not JSON, nested past the parser, no id) is skipped and reported,
never fatal.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pifold_agent.sessions.errors import SessionError


@dataclass(frozen=True, slots=True)
class LineProblem:
    """A line that was skipped on reading."""

    line_number: int
    """1-based line number in the file."""
    reason: str
    """What was wrong with it."""

    def __str__(self) -> str:
        return f"line {self.line_number}: {self.reason}"


@dataclass(frozen=True, slots=True)
class ParsedSession:
    """A session file's lines, sorted out."""

    header: dict[str, Any]
    """The ``session`` line (one made up from the file name when it is missing)."""
    entries: list[tuple[int, dict[str, Any]]]
    """Every entry line with an id, with its line number, in file order."""
    problems: list[LineProblem]
    """Lines skipped, in file order."""


def read_session_bytes(path: Path) -> bytes:
    """The whole of a session file.

    Raises:
        SessionError: the file is missing, unreadable or not a regular file.
    """
    try:
        status = os.stat(path)
        if not stat.S_ISREG(status.st_mode):
            raise SessionError(f"cannot read session file {path}: {kind_of(status.st_mode)}")
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(descriptor, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise SessionError(f"cannot read session file {path}: not a regular file")
            return stream.read()
    except OSError as error:
        raise SessionError(f"cannot read session file {path}: {error.strerror or error}") from None


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, for a refusal."""
    if stat.S_ISDIR(mode):
        return "it is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "it is a FIFO (named pipe), not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "it is a device, not a file"
    if stat.S_ISSOCK(mode):
        return "it is a socket, not a file"
    return "not a regular file"


def size_of(path: Path) -> int | None:
    """The file's size now (``None``: it does not exist).

    Raises:
        SessionError: it cannot be looked at.
    """
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SessionError(f"cannot read session file {path}: {error.strerror or error}") from None


def parse_session(path: Path, data: bytes) -> ParsedSession:
    """The header and entry lines of a session file's bytes.

    Raises:
        SessionError: the bytes hold neither a header nor an entry (not a session file).
    """
    header: dict[str, Any] | None = None
    entries: list[tuple[int, dict[str, Any]]] = []
    problems: list[LineProblem] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            problems.append(LineProblem(number, f"not a JSON line ({error})"))
            continue
        except RecursionError:
            problems.append(LineProblem(number, "not a JSON line (nested too deeply)"))
            continue
        if not isinstance(value, dict):
            problems.append(LineProblem(number, "not a JSON object"))
        elif value.get("type") == "session" and header is None:
            header = value
        elif not isinstance(value.get("id"), str) or not value["id"]:
            problems.append(LineProblem(number, "an entry without an 'id'"))
        else:
            entries.append((number, value))
    if header is None:
        if not entries:
            raise SessionError(f"{path} is not a session file: no session header")
        problems.append(LineProblem(1, "the session header is missing"))
        header = {"type": "session", "id": path.stem.rpartition("_")[2], "cwd": ""}
    return ParsedSession(header, entries, problems)


__all__ = [
    "LineProblem",
    "ParsedSession",
    "kind_of",
    "parse_session",
    "read_session_bytes",
    "size_of",
]
