"""The fold store: content-addressed, write-once, hash-verified (DESIGN §3).

Layout: ``<root>/sha256/<2 hex>/<64 hex>``. Each object file is a one-line header followed
by the payload::

    pifold-object format=1 hash=sha256 bytes=<n>\\n<payload>

The header records the format version and hash algorithm with every stored object; the file
name is the SHA-256 of the payload. Objects are written atomically (temporary file, fsync,
rename, fsync of the folder) and made read-only (0444). Every read re-hashes the payload: a
missing or damaged object raises an error that names it, never returns wrong bytes.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from pifold_core.canonical import CANONICAL_FORMAT_VERSION, HASH_ALGORITHM, sha256_hex

OBJECT_FORMAT_VERSION = 1
"""Version of the object file layout described above."""

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


def write_file_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` so a crash leaves either the old file or the new one.

    Temporary file in the same folder, fsync, chmod, rename over the target, fsync the folder.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
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


class FoldStore:
    """Content-addressed object store for fold sources."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        """The store folder (``<state>/store``)."""

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
        if path.exists():
            self.get(digest)
            return digest
        header = (
            f"pifold-object format={OBJECT_FORMAT_VERSION} hash={HASH_ALGORITHM} "
            f"bytes={len(payload)}\n"
        ).encode("ascii")
        write_file_atomically(path, header + payload, mode=0o444)
        return digest

    def get(self, digest: str) -> bytes:
        """Return the payload of an object after verifying its hash.

        Raises:
            StoreObjectMissing: no such object.
            StoreObjectCorrupt: the header or the bytes do not match the name.
        """
        path = self.path_of(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreObjectMissing(
                f"fold store object {digest} is missing (expected at {path})", digest
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

    def contains(self, digest: str) -> bool:
        """Whether an object file exists (not verified)."""
        return self.path_of(digest).exists()


__all__ = [
    "CANONICAL_FORMAT_VERSION",
    "FoldStore",
    "StoreError",
    "StoreObjectCorrupt",
    "StoreObjectMissing",
    "fsync_directory",
    "write_file_atomically",
]
