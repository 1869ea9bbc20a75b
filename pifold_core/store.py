"""The fold store: content-addressed, write-once, hash-verified (DESIGN §3).

Layout: ``<root>/sha256/<2 hex>/<64 hex>``. Each object file is a one-line header followed
by the payload::

    pifold-object format=1 hash=sha256 bytes=<n>\\n<payload>

The header records the format version and hash algorithm with every stored object. In
format 1 the payload is the object's bytes and the file name is their SHA-256: an entry's
record (a *leaf*, as format 2 used them), or a fold's whole source as versions before issue
12 stored it (still read). In formats 2 to 4 the object is a fold stored as a Merkle node
(:mod:`pifold_core.merkle`)::

    pifold-object format=4 hash=sha256 bytes=<source length> listing=<sha256>\n<listing>

The payload only lists the fold's parts by digest: child folds, and entries, each named by
its line in the session log (the one place an entry's bytes are kept), so a commit writes
one small file per fold. Format 4 (written now, issue 23) is named by its parts' digests
(:mod:`pifold_core.fold_digest`); format 3 by the SHA-256 of the fold's whole source;
format 2 named each entry's record as a leaf object of its own. A read reassembles the
source, verifying the listing against the header, every part on the way (a log line with
``pread``, checksum and SHA-256: :func:`pifold_core.journal.read_entry_bytes`), and the
name against the listing (4) or the whole source (2, 3). Objects are written atomically
(temporary file, fsync, rename, fsync of the folder), read-only and private (0400, folders
0700). Every read verifies: a missing or damaged object raises an error that names it, never
returns wrong bytes, and is remembered in :attr:`FoldStore.damaged` so status can show it.

A kill inside a write leaves a temporary file (``.<name>.<random>``) beside its target:
:func:`remove_temporaries` clears them, and the engine calls it on every writable open.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from pifold_core.atomic_files import (
    FOLDER_MODE,
    OBJECT_MODE,
    TEMPORARY_PREFIX,
    find_temporaries,
    fsync_directory,
    loose_modes,
    make_private_folder,
    remove_temporaries,
    tighten_modes,
    walk_tree,
    write_file_atomically,
)
from pifold_core.canonical import CANONICAL_FORMAT_VERSION, HASH_ALGORITHM, sha256_hex
from pifold_core.journal import LogEntryDamaged, LogSpan, read_entry_bytes
from pifold_core.merkle import FoldPart, ListedPart, assemble, inside, named_by_parts
from pifold_core.store_format import (
    FOLD_FORMAT_VERSION,
    LOG_FOLD_FORMAT_VERSION,
    OBJECT_FORMAT_VERSION,
    PARTS_FOLD_FORMAT_VERSION,
    ObjectFile,
    StoreError,
    StoreObjectCorrupt,
    StoreObjectMissing,
    fold_file_bytes,
    object_file_bytes,
    read_object_file,
)

_DIGEST = re.compile(r"[0-9a-f]{64}")


class FoldStore:
    """Content-addressed object store for fold sources."""

    def __init__(self, root: Path, log: Path | None = None) -> None:
        self.root = Path(root)
        """The store folder (``<state>/store``)."""
        self.log = Path(log) if log is not None else None
        """The log whose entry lines fold objects list (``None``: reading one is an error)."""
        self.damaged: dict[str, StoreError] = {}
        """Objects found missing or corrupt by a read, by digest: what status reports."""

    def path_of(self, digest: str) -> Path:
        """Where the object with this SHA-256 lives."""
        if not _DIGEST.fullmatch(digest):
            raise ValueError(f"not a sha256 hex digest: {digest!r}")
        return self.root / HASH_ALGORITHM / digest[:2] / digest

    def put(self, payload: bytes, unsynced: set[Path] | None = None) -> str:
        """Store ``payload`` once and return its SHA-256. Idempotent.

        An existing object is verified rather than rewritten, so a damaged object is reported
        instead of being silently trusted. With ``unsynced`` the new file's folder is added
        to it instead of being fsynced: the caller fsyncs each folder once.
        """
        digest = sha256_hex(payload)
        path = self.path_of(digest)
        if os.path.lexists(path):
            self.get(digest)
            return digest
        write_file_atomically(
            path, object_file_bytes(payload), mode=OBJECT_MODE, sync_folder=unsynced is None
        )
        if unsynced is not None:
            unsynced.add(path.parent)
        self.damaged.pop(digest, None)
        return digest

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
        found = self._read_file(digest)
        if found.listing is None:
            return found.payload
        source = assemble(self._insides(digest, found.listing))
        length = found.length
        if len(source) != length:
            raise StoreObjectCorrupt(
                f"fold store object {digest} reassembles to {len(source)} bytes, its header "
                f"says {length}",
                digest,
            )
        if found.version == PARTS_FOLD_FORMAT_VERSION:
            return source  # named by its listing (checked) and every part verified as read
        actual = sha256_hex(source)
        if actual != digest:
            raise StoreObjectCorrupt(
                f"fold store object {digest} is corrupt: its parts reassemble to bytes that "
                f"hash to {actual}",
                digest,
            )
        return source

    def _insides(self, digest: str, parts: Sequence[ListedPart]) -> list[bytes]:
        """Each part's bytes (a child's without its brackets), each verified on the way."""
        insides: list[bytes] = []
        descriptor: int | None = None
        try:
            for part in parts:
                if part.kind == "entry" and part.span is not None:
                    if descriptor is None:
                        descriptor = self._open_log(digest)
                    insides.append(self.entry_bytes(part.digest, part.span, descriptor, digest))
                else:
                    data = self.get(part.digest)  # verified, remembered as damaged if not
                    insides.append(inside(data) if part.kind == "fold" else data)
        finally:
            if descriptor is not None:
                os.close(descriptor)
        return insides

    def _open_log(self, digest: str) -> int:
        if self.log is None:
            raise StoreObjectCorrupt(
                f"fold store object {digest} lists entries in a session log, and this store "
                "was opened without one",
                digest,
            )
        try:
            return os.open(self.log, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as error:
            raise StoreObjectMissing(
                f"fold store object {digest} lists entries in {self.log}, which cannot be "
                f"read: {error.strerror or error}",
                digest,
            ) from None

    def entry_bytes(
        self, digest: str, span: LogSpan, descriptor: int | None = None, fold: str | None = None
    ) -> bytes:
        """One entry's exact record bytes from its line in the log, verified against
        ``digest`` (a part of a format-3 fold object; ``descriptor``: the log, open).

        Raises:
            StoreObjectCorrupt: the line is damaged, cut short or holds another entry; the
                message names the entry's digest, the byte range and the fold listing it.
        """
        owned = descriptor is None
        handle = self._open_log(fold or digest) if descriptor is None else descriptor
        try:
            data = read_entry_bytes(handle, span, digest)
        except LogEntryDamaged as error:
            within = f" (listed by fold store object {fold})" if fold else ""
            damage = StoreObjectCorrupt(f"entry {digest}{within}: {error}", digest)
            self.damaged[digest] = damage
            raise damage from None
        finally:
            if owned:
                os.close(handle)
        self.damaged.pop(digest, None)
        return data

    def _read_file(self, digest: str) -> ObjectFile:
        """One object file, checked on its own (see :func:`read_object_file`)."""
        return read_object_file(self.path_of(digest), digest)

    def own_error(self, digest: str) -> StoreError | None:
        """Whether the object file itself is sound, its parts not read: ``None`` when it is.

        What a repair needs: a fold whose parts are damaged has a sound object of its own.
        """
        try:
            self._read_file(digest)
        except StoreError as error:
            return error
        return None

    def read_listing(self, digest: str) -> tuple[list[ListedPart], int] | None:
        """A fold object's verified listing and recorded source length, parts not read;
        ``None`` for a plain object (verified whole here).

        Raises:
            StoreError: the object file itself is missing or damaged.
        """
        found = self._read_file(digest)
        return None if found.listing is None else (found.listing, found.length)

    def put_fold(self, digest: str, parts: Sequence[FoldPart]) -> str:
        """Store one fold (see :meth:`put_folds`); returns its digest."""
        self.put_folds([(digest, parts)])
        return digest

    def put_folds(self, folds: Sequence[tuple[str, Sequence[FoldPart]]]) -> None:
        """Store folds, each as the listing of its parts, children before parents.

        An ``entry`` part is listed by its line in the log (nothing is written for it: the
        log holds its bytes, and the caller makes that line durable with the folds' record);
        a ``leaf`` part carries its bytes and is stored as its own object (once: an existing
        leaf is verified); each child fold must be stored already or earlier in ``folds``.
        The log is fsynced first (its lines must be durable before an object names them),
        every file as it is written, every folder touched once at the end, before the caller
        makes the folds' log record durable. A fold object that exists and verifies is kept;
        one that does not (a commit that never landed) is written anew from the parts.

        Raises:
            StoreObjectMissing: a child fold part is not in the store.
            ValueError: a leaf part without its bytes, an entry part without its line, or a
                fold without parts.
        """
        if self.log is not None and any(p.kind == "entry" for _, parts in folds for p in parts):
            _sync_file(self.log)
        unsynced: set[Path] = set()
        for digest, parts in folds:
            if not parts:
                raise ValueError(f"fold {digest} has no parts")
            for part in parts:
                if part.kind == "leaf":
                    if part.payload is None:
                        raise ValueError(f"leaf {part.digest} of fold {digest} has no bytes")
                    self.put(part.payload, unsynced)
                elif part.kind == "entry" and part.span is None:
                    raise ValueError(f"entry {part.digest} of fold {digest} has no log line")
                elif part.kind == "fold" and not os.path.lexists(self.path_of(part.digest)):
                    raise StoreObjectMissing(
                        f"fold store object {part.digest} (a child of fold {digest}) is missing",
                        part.digest,
                    )
            path = self.path_of(digest)
            if os.path.lexists(path) and self.verify(digest) is None:
                continue
            write_file_atomically(path, _fold_file(digest, parts), OBJECT_MODE, False)
            unsynced.add(path.parent)
            self.damaged.pop(digest, None)
        for folder in sorted(unsynced):
            fsync_directory(folder)

    def rewrite_fold(self, digest: str, parts: Sequence[FoldPart], quarantine: Path) -> Path | None:
        """Put back a damaged fold object from its parts (:meth:`rewrite` for a fold).

        The parts are the fold's as the log's entries and folds give them; they are read
        (verified) and reassembled first, and nothing is written unless the whole hashes to
        ``digest``, so nothing is trusted unverified. Returns where the damaged file was
        moved, if there was one.

        Raises:
            StoreError: a part is damaged, or the parts do not reassemble to ``digest``.
        """
        listed = [ListedPart(part.kind, part.digest, part.span) for part in parts]
        source = assemble(self._insides(digest, listed))  # every part verified as it is read
        actual = digest if named_by_parts(digest, parts) else sha256_hex(source)
        if actual != digest:
            raise StoreObjectCorrupt(
                f"refusing to rewrite fold store object {digest}: its parts reassemble to "
                f"bytes that hash to {actual}",
                digest,
            )
        moved = self._set_aside(digest, quarantine)
        write_file_atomically(self.path_of(digest), _fold_file(digest, parts), OBJECT_MODE)
        self.damaged.pop(digest, None)
        self.get(digest)
        return moved

    def _set_aside(self, digest: str, quarantine: Path) -> Path | None:
        """Move whatever stands in the object's place into ``quarantine``."""
        path = self.path_of(digest)
        if not os.path.lexists(path):
            return None
        make_private_folder(quarantine)
        moved = quarantine / f"{digest}.{os.getpid()}.{len(os.listdir(quarantine))}"
        os.replace(path, moved)
        return moved

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
        moved = self._set_aside(expected_digest, quarantine)
        write_file_atomically(
            self.path_of(expected_digest), object_file_bytes(payload), mode=OBJECT_MODE
        )
        self.damaged.pop(expected_digest, None)
        return moved

    def contains(self, digest: str) -> bool:
        """Whether an object file exists (not verified)."""
        return self.path_of(digest).exists()

    def object_paths(self) -> Iterator[tuple[Path, str | None]]:
        """Every non-temporary file in the store with the digest its place names, or ``None``
        when the file sits where no object can (a foreign file)."""
        for path in walk_tree(self.root):
            if path.name.startswith(TEMPORARY_PREFIX) or path.is_dir():
                continue
            name = path.name
            expected = self.root / HASH_ALGORITHM / name[:2] / name
            yield path, (name if _DIGEST.fullmatch(name) and path == expected else None)


def _fold_file(digest: str, parts: Sequence[FoldPart]) -> bytes:
    """Fold ``digest``'s file: format 4 if named by its parts, else 3 (an older engine's)."""
    if named_by_parts(digest, parts):
        return fold_file_bytes(parts, PARTS_FOLD_FORMAT_VERSION)
    return fold_file_bytes(parts)


def _sync_file(path: Path) -> None:
    """Make the log's lines durable before a fold object lists them: an entry's bytes must
    never be younger on disk than an object naming them (fsynced here and at a commit)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


__all__ = [
    "CANONICAL_FORMAT_VERSION",
    "FOLDER_MODE",
    "FOLD_FORMAT_VERSION",
    "LOG_FOLD_FORMAT_VERSION",
    "OBJECT_FORMAT_VERSION",
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
