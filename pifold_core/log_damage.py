"""What a damaged log line loses: the entries whose only copy it held (issue 12).

The log's entry lines are the fold store's leaves (:mod:`pifold_core.journal`): an entry's
bytes are kept there and nowhere else. A line damaged in the middle of the log stops the
session from opening (the lines after it cannot be trusted), and what ``pifold doctor`` must
then say is exactly which entries the damage took. Every line carries its own checksum, so
the sound lines around a damaged one still read: their fold objects name each folded entry
by digest and line, and their commit records name each fold's handle. So for each damaged
line this finds the entry it held (by the digest the fold objects list for that line, and
the id its damaged bytes still show) and the folds that can no longer be read because of it.
Nothing here is trusted as content: an id read from damaged bytes is reported as such.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pifold_core.journal import LogSpan, parse_line
from pifold_core.store import FoldStore, StoreError
from pifold_core.store_format import read_object_file

_ENTRY_ID = re.compile(rb'"k":"entry","b":\{"record":\{"v":\d+,"id":"([^"\\]{1,200})"')


@dataclass(frozen=True, slots=True)
class LostEntry:
    """A damaged log line and the entry it held."""

    line_number: int
    """1-based line of the log."""
    span: LogSpan
    """Where the damaged line lies."""
    digest: str | None
    """The entry's record digest, as the fold objects that list this line name it (``None``
    when no fold lists it)."""
    shown_id: str | None
    """The entry id the damaged bytes still show (not verified), if any."""
    folds: tuple[str, ...]
    """The folds that list this line, through their objects: handles where a sound commit
    line names them, else store digests."""
    leaf_copy: bool
    """Whether an older leaf object still holds the entry's record (verified)."""

    def describe(self) -> str:
        """One sentence for the doctor's report."""
        what = f"entry {self.shown_id!r} (as its damaged bytes read)" if self.shown_id else "entry"
        if self.digest is not None:
            what += f" with record digest {self.digest}"
        text = f"line {self.line_number} ({self.span.describe()}) held {what}, whose bytes "
        if self.leaf_copy:
            text += "survive only in a leaf object of the store, not in the log"
        else:
            text += "the log kept in no other place: the entry is lost"
        if self.folds:
            text += f"; folds that cannot be read without it: {', '.join(self.folds)}"
        return text


def lost_entries(log: Path, store: FoldStore) -> list[LostEntry]:
    """Every damaged line of ``log`` that held an entry, with what it takes with it.

    A damaged last line is a torn write (cut off, never a fold's part), so only the lines
    before the last are looked at; a line that is neither listed by a fold nor shows an
    entry's id is some other record and is left to the log's own report.
    """
    try:
        data = log.read_bytes()
    except OSError:
        return []
    damaged: list[tuple[int, LogSpan, bytes]] = []
    handles: dict[str, str] = {}
    offset = 0
    lines = data.split(b"\n")[:-1]
    for number, line in enumerate(lines, start=1):
        span = LogSpan(offset, len(line))
        offset += len(line) + 1
        record = parse_line(line)
        if record is None or record.sequence != number - 1:
            if number < len(lines):
                damaged.append((number, span, line))
        elif record.kind == "commit":
            handles.update(_fold_handles(record.body))
    if not damaged:
        return []
    listed, parents = _listings(store)
    found: list[LostEntry] = []
    for number, span, line in damaged:
        naming = [(digest, fold) for at, digest, fold in listed if _overlaps(at, span)]
        match = _ENTRY_ID.search(line)
        shown = match[1].decode("utf-8", "replace") if match else None
        if not naming and shown is None:
            continue
        digest = naming[0][0] if naming else None
        unreadable = _with_ancestors({fold for _, fold in naming}, parents)
        folds = sorted(handles.get(fold, fold) for fold in unreadable)
        copy = digest is not None and store.verify(digest) is None
        found.append(LostEntry(number, span, digest, shown, tuple(folds), copy))
    return found


def _fold_handles(body: dict[str, object]) -> Iterator[tuple[str, str]]:
    folds = body.get("folds")
    for record in folds if isinstance(folds, list) else []:
        source = record.get("source") if isinstance(record, dict) else None
        if isinstance(source, dict) and isinstance(record.get("handle"), str):
            yield str(source.get("digest")), str(record["handle"])


def _listings(
    store: FoldStore,
) -> tuple[list[tuple[LogSpan, str, str]], dict[str, set[str]]]:
    """Every entry part of every readable fold object (its line, its digest and the fold),
    and every fold object's parents (the objects listing it as a child)."""
    entries: list[tuple[LogSpan, str, str]] = []
    parents: dict[str, set[str]] = {}
    for path, digest in store.object_paths():
        if digest is None:
            continue
        try:
            found = read_object_file(path, digest)
        except StoreError:
            continue
        for part in found.listing or []:
            if part.kind == "entry" and part.span is not None:
                entries.append((part.span, part.digest, digest))
            elif part.kind == "fold":
                parents.setdefault(part.digest, set()).add(digest)
    return entries, parents


def _with_ancestors(folds: set[str], parents: dict[str, set[str]]) -> set[str]:
    """``folds`` and every fold object that lists one of them, however far up."""
    found, pending = set(folds), list(folds)
    while pending:
        for parent in parents.get(pending.pop(), set()):
            if parent not in found:
                found.add(parent)
                pending.append(parent)
    return found


def _overlaps(listed: LogSpan, span: LogSpan) -> bool:
    return listed.offset < span.offset + span.length + 1 and span.offset < (
        listed.offset + listed.length + 1
    )


__all__ = ["LostEntry", "lost_entries"]
