"""Files of a session's state written safely: atomic writes, private modes, leftovers.

Every object file is written atomically (temporary file in the same folder, fsync, rename,
fsync of the folder) so a crash leaves the old file or the new one, never half of one. A kill
inside a write leaves its temporary file (``.<name>.<random>``) beside the target, which
:func:`remove_temporaries` clears on a writable open. Folders are 0700 and objects 0400.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

OBJECT_MODE = 0o400
"""Store objects and evidence artifacts: read-only, and private to the user."""
FOLDER_MODE = 0o700
"""Every folder of a session's state."""
TEMPORARY_PREFIX = "."
"""Temporary files of an atomic write start with this (real objects never do)."""


def fsync_directory(directory: Path) -> None:
    """Make a rename or creation inside ``directory`` durable."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def make_private_folder(folder: Path) -> None:
    """Create ``folder`` and any missing parents as 0700, whatever the umask."""
    missing: list[Path] = []
    probe = Path(folder)
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for created in reversed(missing):
        try:
            created.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            continue  # made meanwhile by someone else: its mode is theirs
        os.chmod(created, FOLDER_MODE)  # mkdir's mode is cut by the umask


def write_file_atomically(
    path: Path, data: bytes, mode: int = OBJECT_MODE, sync_folder: bool = True
) -> None:
    """Write ``data`` to ``path`` so a crash leaves either the old file or the new one.

    Temporary file in the same folder, fsync, chmod, rename over the target, fsync the folder.
    Missing folders are created private (0700). A caller writing many files may pass
    ``sync_folder=False`` and fsync each folder once itself (:func:`fsync_directory`) before
    anything that depends on the files is made durable.
    """
    make_private_folder(path.parent)
    descriptor, temporary = tempfile.mkstemp(
        prefix=f"{TEMPORARY_PREFIX}{path.name}.", dir=path.parent
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    if sync_folder:
        fsync_directory(path.parent)


def remove_temporaries(root: Path) -> list[Path]:
    """Delete the temporary files that killed atomic writes left anywhere under ``root``.

    Only the writer holding the session's lock may call this: a temporary file of a live
    writer would otherwise vanish under it.
    """
    removed: list[Path] = []
    for path in walk_tree(root):
        if path.name.startswith(TEMPORARY_PREFIX) and path.is_file() and not path.is_symlink():
            path.unlink(missing_ok=True)
            removed.append(path)
    if removed:
        for folder in {path.parent for path in removed}:
            fsync_directory(folder)
    return removed


def find_temporaries(root: Path) -> list[Path]:
    """The temporary files :func:`remove_temporaries` would delete (nothing is changed)."""
    return [
        path
        for path in walk_tree(root)
        if path.name.startswith(TEMPORARY_PREFIX) and path.is_file() and not path.is_symlink()
    ]


def loose_modes(root: Path) -> list[tuple[Path, int, int]]:
    """Folders under ``root`` (itself included) wider than 0700 and files other than 0400:
    ``(path, mode now, mode wanted)``. Symlinks are never followed or changed."""
    found: list[tuple[Path, int, int]] = []
    for path in [Path(root), *walk_tree(root)]:
        try:
            status = path.lstat()
        except FileNotFoundError:
            continue
        if stat.S_ISDIR(status.st_mode):
            wanted = FOLDER_MODE
        elif stat.S_ISREG(status.st_mode) and not path.name.startswith(TEMPORARY_PREFIX):
            wanted = OBJECT_MODE
        else:
            continue
        mode = stat.S_IMODE(status.st_mode)
        if mode != wanted:
            found.append((path, mode, wanted))
    return found


def tighten_modes(root: Path) -> list[tuple[Path, int, int]]:
    """Set what :func:`loose_modes` finds to its wanted mode; returns what was changed."""
    changed = loose_modes(root)
    for path, _, wanted in changed:
        os.chmod(path, wanted, follow_symlinks=False)
    return changed


def walk_tree(root: Path) -> Iterator[Path]:
    """Every file and folder under ``root`` (not ``root`` itself), never through a symlink."""
    if not Path(root).is_dir():
        return
    for folder, folders, files in os.walk(root, followlinks=False):
        for name in [*folders, *files]:
            yield Path(folder) / name
