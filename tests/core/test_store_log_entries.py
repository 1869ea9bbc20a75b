"""Entry records in the log as the store's leaves: spans, verified reads, loud damage."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pifold_core.canonical import sha256_hex
from pifold_core.entries import Entry, text_entry
from pifold_core.journal import Journal, LogEntryDamaged, LogSpan, read_entry_bytes


def _entries() -> list[Entry]:
    return [
        text_entry("u1", "user", "hello é"),
        text_entry("a1", "assistant", "a reply\nwith lines"),
        text_entry("u2", "user", "more"),
    ]


def _log(path: Path, entries: list[Entry]) -> Journal:
    journal = Journal(path)
    journal.append("open", {"options": {}})
    for entry in entries:
        journal.append("entry", {"record": entry.to_record(), "tokens": {"count": 9}})
        journal.append("request", {"n": 1})
    journal.close()
    return journal


def test_every_entry_line_is_found_again_and_reads_back_its_exact_verified_bytes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.jsonl"
    entries = _entries()
    written = _log(path, entries)
    reader = Journal(path, read_only=True)
    records = list(reader.read_all())
    assert reader.entry_spans == written.entry_spans
    assert set(reader.entry_spans) == {"u1", "a1", "u2"}
    data = path.read_bytes()
    for entry in entries:
        span = reader.entry_spans[entry.id]
        assert data[span.offset + span.length : span.offset + span.length + 1] == b"\n"
        assert reader.read_entry(span, entry.digest) == entry.record_bytes
    assert all(record.span is not None for record in records)


def test_last_span_names_the_latest_append(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    journal = Journal(path)
    journal.append("open", {"options": {}})
    first = journal.last_span
    journal.append("entry", {"record": _entries()[0].to_record()})
    second = journal.last_span
    journal.close()
    assert first is not None and second is not None
    assert first.offset == 0 and second.offset == first.length + 1
    assert second.offset + second.length + 1 == path.stat().st_size


@pytest.mark.parametrize("damage", ["flipped byte", "cut short", "another line", "wrong digest"])
def test_a_damaged_entry_region_is_a_loud_error_naming_its_bytes(
    tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "log.jsonl"
    entries = _entries()
    journal = _log(path, entries)
    span = journal.entry_spans["a1"]
    digest = entries[1].digest
    if damage == "flipped byte":
        data = bytearray(path.read_bytes())
        data[span.offset + span.length // 2] ^= 0x01
        path.write_bytes(bytes(data))
    elif damage == "cut short":
        os.truncate(path, span.offset + span.length - 3)
    elif damage == "another line":
        span = journal.entry_spans["u2"]  # a sound entry, but not the one asked for
    else:
        digest = sha256_hex(b"something else")
    with pytest.raises(LogEntryDamaged, match=f"bytes {span.offset:,}-"):
        journal.read_entry(span, digest)


def test_a_span_on_a_record_that_is_not_an_entry_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    _log(path, _entries())
    reader = Journal(path, read_only=True)
    records = list(reader.read_all())
    request = next(record for record in records if record.kind == "request")
    assert request.span is not None
    descriptor = os.open(path, os.O_RDONLY)
    try:
        with pytest.raises(LogEntryDamaged, match="'request' record, not an entry"):
            read_entry_bytes(descriptor, request.span, _entries()[0].digest)
        with pytest.raises(LogEntryDamaged, match="not a whole line"):
            read_entry_bytes(descriptor, LogSpan(path.stat().st_size - 5, 40), "0" * 64)
    finally:
        os.close(descriptor)


def test_a_failed_append_leaves_no_span(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    journal = Journal(path)
    journal.append("open", {"options": {}})
    before = journal.last_span
    with pytest.raises(ValueError):
        journal.append("entry", {"record": {"id": "x", "text": "\ud800"}})  # not UTF-8
    journal.close()
    assert journal.last_span == before
    assert "x" not in journal.entry_spans
