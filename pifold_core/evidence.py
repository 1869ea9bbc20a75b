"""Evidence artifacts for oversized tool results (DESIGN §3).

A tool result larger than the threshold is written whole, as the canonical record of the
original entry, to ``<session>/pi-fold-evidence/sha256/<2 hex>/<64 hex>.json`` (read-only and
private: 0400 in 0700 folders; content-addressed, atomic). Every read re-hashes it; a missing
or damaged artifact raises an error naming it and is remembered in
:attr:`EvidenceStore.damaged` for status. The transcript keeps a preview (head and tail)
and a pointer that ``peek`` resolves to the exact original. At most
:data:`SESSION_CAP_BYTES` of evidence is written per session; past the cap a result is kept
truncated with a note saying so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pifold_core.canonical import sha256_hex
from pifold_core.entries import Entry, ImageBlock, TextBlock
from pifold_core.store import (
    OBJECT_MODE,
    StoreError,
    StoreObjectCorrupt,
    StoreObjectMissing,
    write_file_atomically,
)

SESSION_CAP_BYTES = 512 * 1024 * 1024
"""Evidence a whole session may hold."""

PREVIEW_HEAD_BYTES = 8 * 1024
PREVIEW_TAIL_BYTES = 4 * 1024
_EVIDENCE_ID = re.compile(r"evidence-([0-9a-f]{64})")


@dataclass(frozen=True, slots=True)
class EvidenceOutcome:
    """What happened to one appended entry."""

    entry: Entry
    """The entry to append: the original, or the preview that points at the artifact."""
    artifact_bytes: int = 0
    """Bytes written to a new artifact (0 when none was written)."""


def evidence_id(digest: str) -> str:
    """The id under which ``peek`` finds an artifact."""
    return f"evidence-{digest}"


class EvidenceStore:
    """The evidence folder of one session."""

    def __init__(self, root: Path, cap_bytes: int = SESSION_CAP_BYTES) -> None:
        self.root = Path(root)
        """``<session>/pi-fold-evidence``."""
        self.cap_bytes = cap_bytes
        """Bytes of evidence this session may hold."""
        self.used_bytes = 0
        """Bytes written so far (restored from the state log on reopen)."""
        self.damaged: dict[str, StoreError] = {}
        """Artifacts found missing or corrupt by a read, by evidence id: what status reports."""

    def account(self, count: int) -> None:
        """Count ``count`` more bytes as used (negative: a failed append taking its artifact's
        bytes back), as a replayed entry's or a checkpoint's figure says."""
        self.used_bytes += count

    def path_of(self, digest: str) -> Path:
        """Where the artifact with this SHA-256 lives."""
        return self.root / "sha256" / digest[:2] / f"{digest}.json"

    def ingest(self, entry: Entry, threshold_bytes: int) -> EvidenceOutcome:
        """Keep a large tool result as evidence and return the entry to append instead."""
        if entry.kind != "tool_result":
            return EvidenceOutcome(entry)
        text = "\n".join(b.text for b in entry.content if isinstance(b, TextBlock))
        encoded = text.encode("utf-8", "surrogatepass")
        if len(encoded) <= threshold_bytes:
            return EvidenceOutcome(entry)
        original = entry.record_bytes
        digest = sha256_hex(original)
        head = encoded[:PREVIEW_HEAD_BYTES].decode("utf-8", "ignore")
        tail = encoded[-PREVIEW_TAIL_BYTES:].decode("utf-8", "ignore")
        omitted = len(encoded) - PREVIEW_HEAD_BYTES - PREVIEW_TAIL_BYTES
        written = 0
        path = self.path_of(digest)
        if path.exists() or self.used_bytes + len(original) <= self.cap_bytes:
            if not path.exists():
                write_file_atomically(path, original, mode=OBJECT_MODE)
                written = len(original)
                self.used_bytes += written
            pointer = (
                f"[pi-fold evidence: this result had {len(encoded):,} bytes; {omitted:,} are "
                f'omitted here. Exact original: pi_fold_context {{"action":"peek",'
                f'"id":"{evidence_id(digest)}"}}]'
            )
            extra = {"evidence": {"id": evidence_id(digest), "bytes": len(original)}}
        else:
            pointer = (
                f"[pi-fold evidence cap of {self.cap_bytes:,} bytes reached: this result had "
                f"{len(encoded):,} bytes and {omitted:,} were dropped, not kept anywhere]"
            )
            extra = {"evidence": {"id": None, "dropped_bytes": omitted}}
        preview = f"{head}\n\n{pointer}\n\n{tail}"
        images = tuple(block for block in entry.content if isinstance(block, ImageBlock))
        clipped = Entry(
            id=entry.id,
            kind=entry.kind,
            timestamp_ms=entry.timestamp_ms,
            content=(TextBlock(preview), *images),
            call_id=entry.call_id,
            tool_name=entry.tool_name,
            is_error=entry.is_error,
            extra={**entry.extra, **extra},
        )
        return EvidenceOutcome(clipped, written)

    def read(self, identifier: str) -> bytes:
        """The exact original record behind an evidence id, hash-verified.

        Raises:
            ValueError: ``identifier`` is not an evidence id (nothing is looked up).
            StoreObjectMissing: no such artifact.
            StoreObjectCorrupt: its bytes do not hash to its name, or it is not a file.
        """
        match = _EVIDENCE_ID.fullmatch(identifier)
        if match is None:
            raise ValueError(f"{identifier!r} is not an evidence id")
        try:
            data = self._read(identifier, match[1])
        except StoreError as error:
            self.damaged[identifier] = error
            raise
        self.damaged.pop(identifier, None)
        return data

    def _read(self, identifier: str, digest: str) -> bytes:
        path = self.path_of(digest)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreObjectMissing(
                f"evidence {identifier} is missing at {path}", digest
            ) from None
        except (IsADirectoryError, NotADirectoryError, PermissionError) as error:
            raise StoreObjectCorrupt(
                f"evidence {identifier} cannot be read as a file at {path}: "
                f"{error.strerror or error}",
                digest,
            ) from None
        actual = sha256_hex(data)
        if actual != digest:
            raise StoreObjectCorrupt(
                f"evidence {identifier} is corrupt: its bytes hash to {actual}", digest
            )
        return data

    def verify(self, identifier: str) -> StoreError | None:
        """Read and verify one artifact: ``None`` when sound, else the error (also kept in
        :attr:`damaged`). Raises nothing for a damaged artifact."""
        try:
            self.read(identifier)
        except StoreError as error:
            return error
        return None
