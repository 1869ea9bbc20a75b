"""The fold store: content-addressed, write-once, hash-verified (DESIGN §3).

Layout: ``<root>/sha256/<2 hex>/<64 hex>``. Each object file is a one-line header followed
by the payload::

    pifold-object format=1 hash=sha256 bytes=<n>\\n<payload>

The header records the format version and hash algorithm with every stored object; the file
name is the SHA-256 of the payload. Objects are written atomically (temporary file, fsync,
rename, fsync of the folder) and made read-only and private (0400, folders 0700). Every read
re-hashes the payload: a missing or damaged object raises an error that names it, never
returns wrong bytes, and is remembered in :attr:`FoldStore.damaged` so status can show it.

A kill inside a write leaves a temporary file (``.<name>.<random>``) beside its target:
:func:`remove_temporaries` clears them, and the engine calls it on every writable open.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from pifold_core.canonical import CANONICAL_FORMAT_VERSION, HASH_ALGORITHM, sha256_hex

OBJECT_FORMAT_VERSION = 1
"""Version of the object file layout described above."""

OBJECT_MODE = 0o400
"""Store objects and evidence artifacts: read-only, and private to the user."""
FOLDER_MODE = 0o700
"""Every folder of a session's state."""
TEMPORARY_PREFIX = "."
"""Temporary files of an atomic write start with this (real objects never do)."""

_HEADER = re.compile(rb"pifold-object format=(\d+) hash=([a-z0-9]+) bytes=(\d+)\n")
_DIGEST = re.compile(r"[0-9a-f]{64}")


class StoreError(RuntimeError):
    """Base class of fold store failures. The message names the object."""

    def __init__(self, message: str, digest: str) -> None:
        super().__init__(message)
        self.digest = digest
        """The SHA-256 of the object concerned."""


class StoreObjectMissing(StoreError):
    """The object a fold refers to is not in the store."""


class StoreObjectCorrupt(StoreError):
    """The object exists but its bytes do not hash to its name, or its header is damaged."""


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


def write_file_atomically(path: Path, data: bytes, mode: int = OBJECT_MODE) -> None:
    """Write ``data`` to ``path`` so a crash leaves either the old file or the new one.

    Temporary file in the same folder, fsync, chmod, rename over the target, fsync the folder.
    Missing folders are created private (0700).
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
    fsync_directory(path.parent)


def remove_temporaries(root: Path) -> list[Path]:
    """Delete the temporary files that killed atomic writes left anywhere under ``root``.

    Only the writer holding the session's lock may call this: a temporary file of a live
    writer would otherwise vanish under it.
    """
    removed: list[Path] = []
    for path in _walk(root):
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
        for path in _walk(root)
        if path.name.startswith(TEMPORARY_PREFIX) and path.is_file() and not path.is_symlink()
    ]


def loose_modes(root: Path) -> list[tuple[Path, int, int]]:
    """Folders under ``root`` (itself included) wider than 0700 and files other than 0400:
    ``(path, mode now, mode wanted)``. Symlinks are never followed or changed."""
    found: list[tuple[Path, int, int]] = []
    for path in [Path(root), *_walk(root)]:
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


def _walk(root: Path) -> Iterator[Path]:
    """Every file and folder under ``root`` (not ``root`` itself), never through a symlink."""
    if not Path(root).is_dir():
        return
    for folder, folders, files in os.walk(root, followlinks=False):
        for name in [*folders, *files]:
            yield Path(folder) / name


class FoldStore:
    """Content-addressed object store for fold sources."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        """The store folder (``<state>/store``)."""
        self.damaged: dict[str, StoreError] = {}
        """Objects found missing or corrupt by a read, by digest: what status reports."""

    def path_of(self, digest: str) -> Path:
        """Where the object with this SHA-256 lives."""
        if not _DIGEST.fullmatch(digest):
            raise ValueError(f"not a sha256 hex digest: {digest!r}")
        return self.root / HASH_ALGORITHM / digest[:2] / digest

    def put(self, payload: bytes) -> str:
        """Store ``payload`` once and return its SHA-256. Idempotent.

        An existing object is verified rather than rewritten, so a damaged object is reported
        instead of being silently trusted.
        """
        digest = sha256_hex(payload)
        path = self.path_of(digest)
        if os.path.lexists(path):
            self.get(digest)
            return digest
        write_file_atomically(path, self._file_bytes(payload), mode=OBJECT_MODE)
        self.damaged.pop(digest, None)
        return digest

    @staticmethod
    def _file_bytes(payload: bytes) -> bytes:
        header = (
            f"pifold-object format={OBJECT_FORMAT_VERSION} hash={HASH_ALGORITHM} "
            f"bytes={len(payload)}\n"
        ).encode("ascii")
        return header + payload

    def get(self, digest: str) -> bytes:
        """Return the payload of an object after verifying its hash.

        Raises:
            StoreObjectMissing: no such object.
            StoreObjectCorrupt: the header or the bytes do not match the name, or the object
                is not a readable file (a folder stands in its place, say).
        """
        try:
            return self._read(digest)
        except StoreError as error:
            self.damaged[digest] = error
            raise

    def _read(self, digest: str) -> bytes:
        path = self.path_of(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreObjectMissing(
                f"fold store object {digest} is missing (expected at {path})", digest
            ) from None
        except (IsADirectoryError, NotADirectoryError, PermissionError) as error:
            raise StoreObjectCorrupt(
                f"fold store object {digest} cannot be read as a file at {path}: "
                f"{error.strerror or error}",
                digest,
            ) from None
        match = _HEADER.match(data)
        if match is None:
            raise StoreObjectCorrupt(f"fold store object {digest} has a damaged header", digest)
        version, algorithm, length = int(match[1]), match[2].decode(), int(match[3])
        if version != OBJECT_FORMAT_VERSION or algorithm != HASH_ALGORITHM:
            raise StoreObjectCorrupt(
                f"fold store object {digest} has format {version}/{algorithm}, "
                f"expected {OBJECT_FORMAT_VERSION}/{HASH_ALGORITHM}",
                digest,
            )
        payload = data[match.end() :]
        if len(payload) != length:
            raise StoreObjectCorrupt(
                f"fold store object {digest} holds {len(payload)} bytes, header says {length}",
                digest,
            )
        actual = sha256_hex(payload)
        if actual != digest:
            raise StoreObjectCorrupt(
                f"fold store object {digest} is corrupt: its bytes hash to {actual}", digest
            )
        return payload

    def verify(self, digest: str) -> StoreError | None:
        """Read and verify one object: ``None`` when sound, else the error (also remembered
        in :attr:`damaged`). Raises nothing for a damaged object."""
        try:
            self.get(digest)
        except StoreError as error:
            return error
        self.damaged.pop(digest, None)
        return None

    def rewrite(self, payload: bytes, expected_digest: str, quarantine: Path) -> Path | None:
        """Put back a missing or damaged object from bytes recomputed elsewhere.

        The payload is hashed first and refused unless it is exactly ``expected_digest``:
        nothing is trusted unverified. Whatever stood in the object's place (a damaged file,
        a folder) is moved into ``quarantine`` rather than deleted; returns where it went.

        Raises:
            StoreObjectCorrupt: the payload does not hash to ``expected_digest``.
        """
        actual = sha256_hex(payload)
        if actual != expected_digest:
            raise StoreObjectCorrupt(
                f"refusing to rewrite fold store object {expected_digest}: the bytes offered "
                f"hash to {actual}",
                expected_digest,
            )
        path = self.path_of(expected_digest)
        moved: Path | None = None
        if os.path.lexists(path):
            make_private_folder(quarantine)
            moved = quarantine / f"{expected_digest}.{os.getpid()}.{len(os.listdir(quarantine))}"
            os.replace(path, moved)
        write_file_atomically(path, self._file_bytes(payload), mode=OBJECT_MODE)
        self.damaged.pop(expected_digest, None)
        return moved

    def contains(self, digest: str) -> bool:
        """Whether an object file exists (not verified)."""
        return self.path_of(digest).exists()

    def object_paths(self) -> Iterator[tuple[Path, str | None]]:
        """Every non-temporary file in the store with the digest its place names, or ``None``
        when the file sits where no object can (a foreign file)."""
        for path in _walk(self.root):
            if path.name.startswith(TEMPORARY_PREFIX) or path.is_dir():
                continue
            name = path.name
            expected = self.root / HASH_ALGORITHM / name[:2] / name
            yield path, (name if _DIGEST.fullmatch(name) and path == expected else None)


__all__ = [
    "CANONICAL_FORMAT_VERSION",
    "FOLDER_MODE",
    "OBJECT_MODE",
    "TEMPORARY_PREFIX",
    "FoldStore",
    "StoreError",
    "StoreObjectCorrupt",
    "StoreObjectMissing",
    "find_temporaries",
    "fsync_directory",
    "loose_modes",
    "make_private_folder",
    "remove_temporaries",
    "tighten_modes",
    "write_file_atomically",
]
