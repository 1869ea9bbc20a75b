"""Writing a file as the user means it: through symbolic links, to every hard link, and
atomically wherever that keeps the first two true.

**Symbolic links are written through.** A temporary file renamed over a path replaces the
*directory entry*: renamed over a symbolic link, it replaces the link with a plain file and
leaves the file it pointed to unchanged, while the tool reports success. So the path is
resolved to the end of its link chain first (:func:`os.path.realpath`) and the target is
written; the link stays a link. A dangling link's target is created, as the shell's ``>``
would; a link loop is refused with the system's message.

**Hard links are written in place.** A file with several names (``st_nlink > 1``) is one
inode; renaming a new file over one name would split it, the other names keeping the old
content. Refusing would leave the model unable to edit such files at all (pnpm's and some
build tools' stores are hard links), so the file is rewritten in place, the way editors
such as vim do for the same reason: the new bytes are written over the old from the start,
then the file is cut to their length and synced. Atomicity is given up for these files
only: a crash mid-write leaves the new bytes followed by what is left of the old ones,
never an empty file. The same in-place write is used when the folder refuses a temporary
file but the file itself is writable.

**Everything else is atomic.** The new content goes to a temporary file beside the target
(``.NAME.pifold-XXXXXXXX.tmp``, created with ``O_EXCL``), is synced, gets the target's mode
(and owner, when allowed), and is renamed over it, so a crash leaves the old file or the
new one. A new file gets ``0666`` less the umask, applied by the kernel at creation (the
umask is never read by setting it, which is not safe beside other threads).

**Only regular files.** A FIFO, a device or a socket at the path (after the links) is
refused, not replaced: renaming over ``/dev/null`` or a named pipe would destroy it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from pifold_agent.tools.blocking import NotRegularFile, existing_kind, refusal

TEMPORARY_SUFFIX = ".tmp"
"""The end of every temporary file name; with :data:`TEMPORARY_MARK`, how one is known."""

TEMPORARY_MARK = ".pifold-"
"""What every temporary file name holds between the target's name and the random part."""

_NAME_KEPT = 100
"""Characters of the target's name kept in a temporary name (names are at most 255)."""


def write_target(path: Path) -> Path:
    """The file a write to ``path`` changes: the end of its chain of symbolic links."""
    return Path(os.path.realpath(path))


def write_file(path: Path, shown: str, data: bytes) -> None:
    """Make the file ``path`` names hold ``data`` (see the module docstring).

    Raises:
        NotRegularFile: the path names a folder, a FIFO, a device or a socket.
        OSError: the system refused (no permission, a link loop, no space).
    """
    target = write_target(path)
    mode = existing_kind(target)
    if mode is not None and stat.S_ISDIR(mode):
        raise NotRegularFile(f"{shown} is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        raise NotRegularFile(refusal(shown, mode, "write replaces"))
    if mode is None:
        target.parent.mkdir(parents=True, exist_ok=True)
        _replace(target, data, None)
        return
    info = os.stat(target)
    if info.st_nlink > 1:
        write_in_place(target, shown, data)
        return
    try:
        _replace(target, data, info)
    except PermissionError:
        if not os.access(target, os.W_OK):
            raise
        write_in_place(target, shown, data)  # the folder refuses new files, the file not


def write_in_place(target: Path, shown: str, data: bytes) -> None:
    """Overwrite the regular file ``target`` from its start, then cut it to ``data``."""
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(target, flags)  # O_NONBLOCK: a FIFO swapped in cannot block
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(refusal(shown, info.st_mode, "write replaces"))
        _write_all(descriptor, data)
        os.ftruncate(descriptor, len(data))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def temporary_name(target: Path) -> str:
    """A fresh temporary file name beside ``target``."""
    return f".{target.name[:_NAME_KEPT]}{TEMPORARY_MARK}{secrets.token_hex(4)}{TEMPORARY_SUFFIX}"


def is_temporary_name(name: str) -> bool:
    """Whether ``name`` is one of :func:`temporary_name`'s."""
    return name.startswith(".") and TEMPORARY_MARK in name and name.endswith(TEMPORARY_SUFFIX)


def _replace(target: Path, data: bytes, info: os.stat_result | None) -> None:
    """Write a temporary file beside ``target`` and rename it over it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        temporary = target.parent / temporary_name(target)
        try:
            # A new file: 0666 less the umask, applied by the kernel. A replacement starts
            # private and takes the old file's mode once its content is complete.
            descriptor = os.open(temporary, flags, 0o666 if info is None else 0o600)
            break
        except FileExistsError:
            continue
    try:
        try:
            _write_all(descriptor, data)
            os.fsync(descriptor)
            if info is not None:
                if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                    with contextlib.suppress(OSError):  # only root may give a file away
                        os.fchown(descriptor, info.st_uid, info.st_gid)
                os.fchmod(descriptor, stat.S_IMODE(info.st_mode))  # after: chown clears setuid
        finally:
            os.close(descriptor)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_folder(target.parent)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def _sync_folder(folder: Path) -> None:
    """Make the rename durable; a folder that cannot be opened or synced is left as is."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


__all__ = [
    "TEMPORARY_MARK",
    "TEMPORARY_SUFFIX",
    "is_temporary_name",
    "temporary_name",
    "write_file",
    "write_in_place",
    "write_target",
]
