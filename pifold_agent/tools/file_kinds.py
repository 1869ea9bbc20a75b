"""Regular files only: opening for reading without ever blocking on a FIFO or a device.

``open()`` of a FIFO with no writer blocks inside the system call, and reading
``/dev/zero`` or ``/dev/urandom`` never ends, so the file tools never open anything but a
regular file for reading. :func:`open_regular` checks the kind with ``stat`` first (no open
at all for a FIFO, a device, a socket or a folder), then opens with ``O_NONBLOCK`` (so a
file swapped for a FIFO between the two steps cannot block the open either) and checks the
opened descriptor again with ``fstat``. The refusal names what the path is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS: tuple[tuple[int, str], ...] = (
    (stat.S_IFDIR, "a directory"),
    (stat.S_IFIFO, "a FIFO (named pipe)"),
    (stat.S_IFCHR, "a character device"),
    (stat.S_IFBLK, "a block device"),
    (stat.S_IFSOCK, "a socket"),
    (stat.S_IFLNK, "a symbolic link"),
)


class NotRegularFile(OSError):
    """The path exists but is not a regular file; the message names what it is."""


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, with its article (``a FIFO (named pipe)``)."""
    file_type = stat.S_IFMT(mode)
    for kind, text in _KINDS:
        if file_type == kind:
            return text
    return "a regular file" if file_type == stat.S_IFREG else "a special file"


def refusal(shown: str, mode: int, action: str) -> str:
    """The sentence refusing ``action`` on a non-regular file ``shown``."""
    return (
        f"{shown} is {kind_of(mode)}, not a regular file; {action} only regular files "
        "(a FIFO or a device can block or never end)"
    )


def open_regular(path: Path, shown: str, action: str = "read opens") -> BinaryIO:
    """``path`` opened for binary reading, when it is a regular file (symlinks followed).

    Raises:
        NotRegularFile: it is a FIFO, a device, a socket or a folder (never opened).
        OSError: it is missing, unreadable, or a symbolic link loop.
    """
    before = os.stat(path)
    if not stat.S_ISREG(before.st_mode):
        raise NotRegularFile(refusal(shown, before.st_mode, action))
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(path, flags)
    try:
        after = os.fstat(descriptor)
        if not stat.S_ISREG(after.st_mode):
            raise NotRegularFile(refusal(shown, after.st_mode, action))
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def existing_kind(path: Path) -> int | None:
    """The ``st_mode`` of what ``path`` names (symlinks followed), or None when nothing is
    there (a dangling symlink included). A symlink loop or a denied lookup raises."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        return None


__all__ = ["NotRegularFile", "existing_kind", "kind_of", "open_regular", "refusal"]
