"""The memory store: notes as private Markdown files, addressed by paths under ``/memories``.

The memory tool and the ``/memory`` screen both go through :class:`MemoryStore`. Its path
space is Anthropic's memory tool's: ``/memories`` is the project's folder and
``/memories/user`` the user's (:mod:`pifold_agent.memory.locations`). A path is refused,
naming the rule, when it could leave its folder or hide a file: ``..`` or ``.`` parts, empty
parts, a backslash, ``%`` (no encoded spelling gets through), control characters, a part
starting with ``.`` (hidden files, and the temporary files of atomic writes, are never
notes), a part longer than 255 bytes, more than :data:`MAX_DEPTH` parts; and a path whose
real location (symbolic links followed) is outside its folder. A note holds at most
:data:`MAX_NOTE_BYTES` bytes of UTF-8.

Writes are atomic (:func:`pifold_core.atomic_files.write_file_atomically`: a kill leaves the
old note or the new one, and a temporary file no listing shows); notes are 0600 and their
folders 0700.
"""

from __future__ import annotations

import os
import shutil
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.memory.notes import Note, note_from_text
from pifold_core.atomic_files import fsync_directory, make_private_folder, write_file_atomically

VIRTUAL_ROOT = "/memories"
"""Where the memory tool's paths start."""

USER_PREFIX = "/memories/user"
"""The user-wide folder in the tool's path space."""

NOTE_MODE = 0o600
"""A note file: private, and writable so a person can edit it."""

MAX_NOTE_BYTES = 32_768
"""The largest note, in UTF-8 bytes: notes come back into the window, so they stay short."""

MAX_DEPTH = 8
"""Path parts below ``/memories`` a note may sit at."""

MAX_PART_BYTES = 255
"""A file or folder name's longest spelling in bytes (what file systems allow)."""


class MemoryStoreError(ValueError):
    """A refused memory path or operation; the message names what was wrong."""


@dataclass(frozen=True, slots=True)
class Located:
    """A virtual path resolved to a file system location."""

    virtual: str
    """The path as the tool names it, normalised (no trailing ``/``)."""
    root: Path
    """The note folder it falls in."""
    real: Path
    """Where it is on disk (it may not exist yet)."""


class MemoryStore:
    """The notes of one project and of the user."""

    def __init__(self, project: Path, user: Path) -> None:
        self.project = Path(project)
        """The project's note folder."""
        self.user = Path(user)
        """The user's note folder."""

    # -- paths ------------------------------------------------------------------------------

    def locate(self, virtual: object) -> Located:
        """Where a ``/memories`` path is, after every refusal rule.

        Raises:
            MemoryStoreError: the rule it breaks.
        """
        if not isinstance(virtual, str):
            raise MemoryStoreError(f"a memory path must be a string, got {type(virtual).__name__}")
        text = virtual.rstrip("/") if virtual.rstrip("/") else virtual
        if text != VIRTUAL_ROOT and not text.startswith(VIRTUAL_ROOT + "/"):
            raise MemoryStoreError(f"memory paths start with {VIRTUAL_ROOT}/, got {virtual!r}")
        parts = text.split("/")[2:]
        for part in parts:
            check_part(part, virtual)
        if len(parts) > MAX_DEPTH:
            raise MemoryStoreError(f"{virtual!r} is deeper than {MAX_DEPTH} folders")
        root, rest = (self.user, parts[1:]) if parts[:1] == ["user"] else (self.project, parts)
        real = root.joinpath(*rest)
        check_inside(root, real, virtual)
        return Located(text, root, real)

    def virtual_of(self, root: Path, real: Path) -> str:
        """The ``/memories`` path of a file under one of the two folders."""
        prefix = USER_PREFIX if root == self.user else VIRTUAL_ROOT
        relative = real.relative_to(root).as_posix()
        return prefix if relative == "." else f"{prefix}/{relative}"

    # -- reading ----------------------------------------------------------------------------

    def read(self, virtual: str) -> Note:
        """The note at ``virtual``.

        Raises:
            MemoryStoreError: refused path, missing, a folder, or not a note file.
        """
        located = self.locate(virtual)
        return self._read(located)

    def _read(self, located: Located) -> Note:
        try:
            status = located.real.lstat()
        except FileNotFoundError:
            raise MemoryStoreError(f"The path {located.virtual} does not exist") from None
        if not stat.S_ISREG(status.st_mode):
            kind = "a folder" if stat.S_ISDIR(status.st_mode) else "not a regular file"
            raise MemoryStoreError(f"{located.virtual} is {kind}")
        with located.real.open("rb") as handle:
            data = handle.read(MAX_NOTE_BYTES + 1)
        if len(data) > MAX_NOTE_BYTES:
            raise MemoryStoreError(
                f"{located.virtual} holds more than {MAX_NOTE_BYTES:,} bytes; shorten it by hand"
            )
        return note_from_text(located.virtual, data.decode("utf-8", "replace"))

    def notes(self) -> list[Note]:
        """Every note of the project, then every note of the user, each sorted by path.

        Hidden files (a killed write's temporary file among them), symbolic links and files
        that cannot be read as notes are left out.
        """
        found: list[Note] = []
        for root in (self.project, self.user):
            for real in sorted(note_files(root)):
                try:
                    found.append(self._read(Located(self.virtual_of(root, real), root, real)))
                except (MemoryStoreError, OSError):
                    continue
        return found

    def exists(self, virtual: str) -> bool:
        """Whether something is at ``virtual`` (refused paths raise)."""
        return os.path.lexists(self.locate(virtual).real)

    # -- writing ----------------------------------------------------------------------------

    def write(self, virtual: str, text: str) -> Note:
        """Write a whole note atomically (0600, folders 0700); returns it.

        Raises:
            MemoryStoreError: refused path, the root itself, a folder there, or too large.
        """
        located = self.locate(virtual)
        if located.real == located.root:
            raise MemoryStoreError(f"{located.virtual} is a folder; name a file inside it")
        data = encoded(text, located.virtual)
        if located.real.is_dir():
            raise MemoryStoreError(f"{located.virtual} is a folder")
        make_private_folder(located.real.parent)
        write_file_atomically(located.real, data, mode=NOTE_MODE)
        return note_from_text(located.virtual, text)

    def delete(self, virtual: str) -> None:
        """Delete a note, or a folder with everything in it (never a root).

        Raises:
            MemoryStoreError: refused path, a root, or nothing there.
        """
        located = self.locate(virtual)
        if located.real == located.root:
            raise MemoryStoreError(f"{located.virtual} is a memory root and cannot be deleted")
        if not os.path.lexists(located.real):
            raise MemoryStoreError(f"The path {located.virtual} does not exist")
        if located.real.is_dir() and not located.real.is_symlink():
            shutil.rmtree(located.real)
        else:
            located.real.unlink()
        fsync_directory(located.real.parent)

    def rename(self, old: str, new: str) -> None:
        """Move a note or folder; the destination must not exist.

        Raises:
            MemoryStoreError: refused paths, a root, a missing source or a taken destination.
        """
        source = self.locate(old)
        target = self.locate(new)
        for located in (source, target):
            if located.real == located.root:
                raise MemoryStoreError(f"{located.virtual} is a memory root and cannot move")
        if not os.path.lexists(source.real):
            raise MemoryStoreError(f"The path {source.virtual} does not exist")
        if os.path.lexists(target.real):
            raise MemoryStoreError(f"The destination {target.virtual} already exists")
        if (target.virtual + "/").startswith(source.virtual + "/"):
            raise MemoryStoreError(f"{source.virtual} cannot move inside itself")
        make_private_folder(target.real.parent)
        os.rename(source.real, target.real)
        fsync_directory(target.real.parent)
        if source.real.parent != target.real.parent:
            fsync_directory(source.real.parent)


def check_part(part: str, virtual: str) -> None:
    """Refuse one path part that could leave its folder, hide a file or be mis-spelt.

    Raises:
        MemoryStoreError: the rule the part breaks.
    """
    if part in ("", ".", ".."):
        shown = part or "an empty part"
        raise MemoryStoreError(f"{virtual!r}: {shown!r} is not allowed in a memory path")
    if part.startswith("."):
        raise MemoryStoreError(f"{virtual!r}: hidden names (starting with '.') are not notes")
    if "\\" in part or "%" in part:
        raise MemoryStoreError(f"{virtual!r}: '\\' and '%' are not allowed in a memory path")
    if any(unicodedata.category(character) in ("Cc", "Cs") for character in part):
        raise MemoryStoreError(f"{virtual!r}: control characters are not allowed")
    if len(part.encode("utf-8")) > MAX_PART_BYTES:
        raise MemoryStoreError(f"{virtual!r}: a name is longer than {MAX_PART_BYTES} bytes")


def check_inside(root: Path, real: Path, virtual: str) -> None:
    """Refuse a location whose real path (symbolic links followed) leaves ``root``.

    Raises:
        MemoryStoreError: it leaves.
    """
    base = os.path.realpath(root)
    resolved = os.path.realpath(real)
    if resolved != base and not resolved.startswith(base + os.sep):
        raise MemoryStoreError(f"{virtual!r} leads outside the memory folder (a symbolic link)")


def encoded(text: object, virtual: str) -> bytes:
    """A note's text as bytes, refused when it is not a string or over the bound.

    Raises:
        MemoryStoreError: not a string, or more than :data:`MAX_NOTE_BYTES` bytes.
    """
    if not isinstance(text, str):
        raise MemoryStoreError(f"a note's text must be a string, got {type(text).__name__}")
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_NOTE_BYTES:
        raise MemoryStoreError(
            f"{virtual}: a note holds at most {MAX_NOTE_BYTES:,} bytes, this one {len(data):,}; "
            "keep notes short, or split one into several"
        )
    return data


def note_files(root: Path) -> list[Path]:
    """The regular, visible files under ``root``, never through a symbolic link below it
    (``root`` itself may be one: a note folder kept in a synced folder)."""
    found: list[Path] = []
    if not root.is_dir():
        return found
    for folder, folders, files in os.walk(root, followlinks=False):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            path = Path(folder) / name
            if not name.startswith(".") and path.is_file() and not path.is_symlink():
                found.append(path)
    return found


__all__ = [
    "MAX_DEPTH",
    "MAX_NOTE_BYTES",
    "NOTE_MODE",
    "USER_PREFIX",
    "VIRTUAL_ROOT",
    "Located",
    "MemoryStore",
    "MemoryStoreError",
    "check_inside",
    "check_part",
    "encoded",
    "note_files",
]
