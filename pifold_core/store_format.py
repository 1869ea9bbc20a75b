"""One fold store object file: its header, its formats, and checking it on its own.

Every object file is a one-line header and a payload (see :mod:`pifold_core.store`)::

    pifold-object format=<n> hash=sha256 bytes=<n>[ listing=<sha256>]\\n<payload>

Format 1 holds bytes named by their own SHA-256 (a leaf, or an old fold's whole source);
formats 2 to 4 hold a fold's listing (:mod:`pifold_core.merkle`), the header naming the
listing's SHA-256 and the length of the source it reassembles to. Format 2 lists child folds
and leaf objects; format 3 may also list entries by their lines in the session log; format
4, what is written now (issue 23), is format 3 for a fold named by its parts (digest version
2, :mod:`pifold_core.fold_digest`), so its listing is checked against its name here.
:func:`read_object_file` checks everything one file can show alone: the header, the format,
a plain payload against its name, a listing against its header (and format 4's name).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pifold_core.canonical import HASH_ALGORITHM, sha256_hex
from pifold_core.merkle import (
    FoldPart,
    ListedPart,
    ListingError,
    decode_listing,
    encode_listing,
    listing_digest,
    named_by_parts,
    source_length,
)

OBJECT_FORMAT_VERSION = 1
"""Layout of a plain object (a leaf, or an old whole fold source): payload named by its hash."""
FOLD_FORMAT_VERSION = 2
"""Layout of a fold stored as a listing of child folds and leaf objects (read, not written)."""
LOG_FOLD_FORMAT_VERSION = 3
"""Layout of a fold whose listing may also name entries by their lines in the session log
(what folds named by their whole source are written as)."""
PARTS_FOLD_FORMAT_VERSION = 4
"""Layout of a fold named by its parts (digest version 2, :mod:`pifold_core.fold_digest`):
the listing of format 3, its parts' digests hashing to the object's name (what every new
fold object is written as)."""
_LISTING_FORMATS = (FOLD_FORMAT_VERSION, LOG_FOLD_FORMAT_VERSION, PARTS_FOLD_FORMAT_VERSION)

_HEADER = re.compile(
    rb"pifold-object format=(\d+) hash=([a-z0-9]+) bytes=(\d+)(?: listing=([0-9a-f]{64}))?\n"
)


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


@dataclass(frozen=True, slots=True)
class ObjectFile:
    """One object file, checked on its own."""

    version: int
    """Its format."""
    payload: bytes
    """The bytes after the header: a plain object's own bytes (verified), or a listing."""
    listing: list[ListedPart] | None
    """A fold object's parts (the listing verified against the header); ``None`` for a plain
    object."""
    length: int
    """The payload's length, or for a fold object the length of the source it lists."""


def object_file_bytes(payload: bytes) -> bytes:
    """The file of a plain object (format 1)."""
    header = (
        f"pifold-object format={OBJECT_FORMAT_VERSION} hash={HASH_ALGORITHM} bytes={len(payload)}\n"
    ).encode("ascii")
    return header + payload


def fold_file_bytes(parts: Sequence[FoldPart], version: int = LOG_FOLD_FORMAT_VERSION) -> bytes:
    """The file of a fold object listing ``parts`` (format 3, or 4 for a fold named by its
    parts)."""
    listing = encode_listing(parts)
    header = (
        f"pifold-object format={version} hash={HASH_ALGORITHM} "
        f"bytes={source_length(parts)} listing={listing_digest(listing)}\n"
    ).encode("ascii")
    return header + listing


def read_object_file(path: Path, digest: str) -> ObjectFile:
    """Read the object file ``digest`` at ``path`` and check what it shows on its own.

    A plain object's payload is verified against its name here; a fold object's listing only
    against its header (its parts are the store's to read).

    Raises:
        StoreObjectMissing: no file there.
        StoreObjectCorrupt: not a readable file, a damaged header, an unknown format, a
            payload that does not hash to its name, or a listing that does not match its
            header or does not parse.
    """
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
    recorded = match[4].decode() if match[4] is not None else None
    if version not in (OBJECT_FORMAT_VERSION, *_LISTING_FORMATS) or algorithm != HASH_ALGORITHM:
        raise StoreObjectCorrupt(
            f"fold store object {digest} has format {version}/{algorithm}, expected "
            f"{OBJECT_FORMAT_VERSION} to {PARTS_FOLD_FORMAT_VERSION}/{HASH_ALGORITHM}",
            digest,
        )
    payload = data[match.end() :]
    if version in _LISTING_FORMATS:
        return ObjectFile(version, payload, _listing(digest, version, payload, recorded), length)
    if recorded is not None:
        raise StoreObjectCorrupt(f"fold store object {digest} has a damaged header", digest)
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
    return ObjectFile(version, payload, None, length)


def _listing(digest: str, version: int, payload: bytes, recorded: str | None) -> list[ListedPart]:
    """The parts a fold object lists, its listing checked against its header."""
    if recorded is None or listing_digest(payload) != recorded:
        raise StoreObjectCorrupt(
            f"fold store object {digest} is corrupt: its listing does not match its header",
            digest,
        )
    try:
        parts = decode_listing(payload)
    except ListingError as error:
        raise StoreObjectCorrupt(f"fold store object {digest}: {error}", digest) from None
    if version == FOLD_FORMAT_VERSION and any(part.kind == "entry" for part in parts):
        raise StoreObjectCorrupt(
            f"fold store object {digest} has format {version} but lists log entries", digest
        )
    if version == PARTS_FOLD_FORMAT_VERSION and not named_by_parts(digest, parts):
        raise StoreObjectCorrupt(
            f"fold store object {digest} is corrupt: the parts it lists hash to another name",
            digest,
        )
    return parts


__all__ = [
    "FOLD_FORMAT_VERSION",
    "LOG_FOLD_FORMAT_VERSION",
    "OBJECT_FORMAT_VERSION",
    "PARTS_FOLD_FORMAT_VERSION",
    "ObjectFile",
    "StoreError",
    "StoreObjectCorrupt",
    "StoreObjectMissing",
    "fold_file_bytes",
    "object_file_bytes",
    "read_object_file",
]
