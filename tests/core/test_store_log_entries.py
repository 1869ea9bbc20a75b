"""Entry records in the log as the store's leaves: spans, verified reads, loud damage,
commit records without repeated text (issue 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pifold_core.canonical import sha256_hex
from pifold_core.doctor import repair
from pifold_core.engine import Engine
from pifold_core.entries import Entry, text_entry
from pifold_core.folds import Fold
from pifold_core.journal import (
    Journal,
    JournalRecord,
    LogEntryDamaged,
    LogSpan,
    fold_from_log,
    fold_log_record,
    read_entry_bytes,
)
from pifold_core.merkle import FoldPart, fold_parts
from pifold_core.placeholders import fold_placeholder
from pifold_core.store import StoreObjectCorrupt
from pifold_core.store_format import fold_file_bytes
from tests.core.builders import CharCounter, expected_source
from tests.core.engine_checks import (
    assert_lossless,
    assert_reopens_identically,
    folded_engine,
    pending_engine,
    set_checkpoint_aside,
)


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


# -- the fold store over the log ----------------------------------------------------------------


def _log_records(engine: Engine) -> list[JournalRecord]:
    engine._state.journal.sync()
    return list(Journal(engine._state.journal.path, read_only=True).read_all())


def test_commit_records_keep_each_brief_once_and_reopen_to_the_same_placeholders(
    tmp_path: Path,
) -> None:
    engine, _ = folded_engine(tmp_path, count=6)
    logged = [
        fold
        for record in _log_records(engine)
        if record.kind == "commit"
        for fold in record.body["folds"]
    ]
    assert logged and all("placeholder" not in fold for fold in logged)
    for fold in engine.view.forest.folds.values():
        assert Fold.from_record(fold_from_log(fold_log_record(fold.to_record()))) == fold
    reopened = assert_reopens_identically(engine)
    assert {h: f.placeholder for h, f in reopened.view.forest.folds.items()} == {
        h: f.placeholder for h, f in engine.view.forest.folds.items()
    }
    engine.close()


def test_a_placeholder_its_fields_do_not_derive_stays_in_the_record() -> None:
    """Only a placeholder the function gives is left out: any other is kept as it was."""
    record = {
        "handle": "fold-0123456789ab",
        "kind": "span",
        "brief": "Ask: fix src/x.py",
        "entry_count": 3,
        "tool_call_count": 1,
        "source": {"hash": "sha256", "format": 1, "digest": "0" * 64, "bytes": 1234},
        "placeholder": "an older wording of the placeholder",
    }
    assert fold_log_record(record) == record
    assert fold_from_log(record) == record
    derived = dict(
        record,
        placeholder=fold_placeholder("fold-0123456789ab", "span", "Ask: fix src/x.py", 3, 1, 1234),
    )
    assert "placeholder" not in fold_log_record(derived)
    assert fold_from_log(fold_log_record(derived)) == derived


def test_the_placeholder_text_is_pinned_so_old_logs_rebuild_it() -> None:
    """Logs leave the placeholder out: its wording must never change under them."""
    assert fold_placeholder("fold-0123456789ab", "tool", "read src/x.py", 2, 1, 12345) == (
        "[folded tool results fold-0123456789ab · 2 entries, 1 tool calls, 12,345 bytes]\n"
        "read src/x.py\n"
        'Exact source: pi_fold_context {"action":"peek","id":"fold-0123456789ab"}; '
        'restore in place: {"action":"expand","id":"fold-0123456789ab"}'
    )


def test_an_entry_line_damaged_under_a_live_session_fails_its_folds_by_name(
    tmp_path: Path,
) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    fold = next(fold for fold in engine.view.forest.folds.values() if not fold.children)
    inner = engine.view.transcript.entries[fold.start]
    span = engine._state.journal.entry_spans[inner.id]
    log = engine._state.journal.path
    data = bytearray(log.read_bytes())
    data[span.offset + span.length - 5] ^= 0x04  # inside the line's checksum
    log.write_bytes(bytes(data))
    with pytest.raises(StoreObjectCorrupt, match=f"entry {inner.digest}") as raised:
        engine.peek(fold.handle)
    assert f"bytes {span.offset:,}-" in str(raised.value)
    assert {fold.source_digest, inner.digest} <= set(engine._state.store.damaged)
    for other in engine.view.forest.folds.values():
        if other.start <= fold.start < other.end:  # it, and every fold above it
            with pytest.raises(StoreObjectCorrupt, match=f"entry {inner.digest}"):
                engine.peek(other.handle)
        else:  # the folds that do not hold it still read
            assert engine.peek(other.handle).data == expected_source(engine, other)
    engine.close()


def test_a_listing_that_names_other_lines_is_damage_the_doctor_rebuilds(tmp_path: Path) -> None:
    """A fold object pointing at the wrong bytes of the log (say, a copy of an older log)
    is named at reopen and rebuilt from the log's own lines, verified."""
    engine, _ = folded_engine(tmp_path, count=4)
    fold = next(fold for fold in engine.view.forest.folds.values() if not fold.children)
    parts = fold_parts(fold, engine.view.forest.folds, engine.view.transcript.entries)  # no spans
    wrong = [
        FoldPart("entry", part.digest, part.length, part.payload, LogSpan(0, part.length))
        for part in parts
    ]
    path = engine._state.store.path_of(fold.source_digest)
    os.chmod(path, 0o600)
    path.write_bytes(fold_file_bytes(wrong))
    state = engine.state_dir
    engine.close()
    set_checkpoint_aside(state)
    reopened = Engine.open(state, None, CharCounter(), read_only=True)
    above = {other.handle for other in reopened.view.forest.ancestors(fold.handle)}
    damaged = {item.id: item.message for item in reopened.status().damaged}
    assert set(damaged) == {fold.handle, *above}  # it, and the folds that list it
    assert "lists other parts" in damaged[fold.handle]
    reopened.close()
    report = repair(state)
    assert any(f"rebuilt the store object of fold {fold.handle}" in a for a in report.actions)
    assert report.after is not None and report.after.healthy
    healed = Engine.open(state, None, CharCounter())
    assert_lossless(healed)
    assert_reopens_identically(healed)
    healed.close()


def test_a_commit_over_a_stale_object_of_the_same_source_writes_it_anew(tmp_path: Path) -> None:
    """An object a commit left before a crash, no longer matching the log, never blocks the
    fold: put_folds keeps a sound object and replaces one that does not verify."""
    engine, _ = pending_engine(tmp_path)
    state = engine.state_dir
    engine.commit_now()
    fold = next(iter(engine.view.forest.folds.values()))
    good = engine._state.store.path_of(fold.source_digest).read_bytes()
    parts = fold_parts(
        fold,
        engine.view.forest.folds,
        engine.view.transcript.entries,
        engine._state.journal.entry_spans,
    )
    stale = [
        FoldPart(p.kind, p.digest, p.length, p.payload, LogSpan(0, 10)) if p.span else p
        for p in parts
    ]
    path = engine._state.store.path_of(fold.source_digest)
    os.chmod(path, 0o600)
    path.write_bytes(fold_file_bytes(stale))
    engine._state.store.put_folds([(fold.source_digest, parts)])
    assert path.read_bytes() == good
    assert engine._state.store.get(fold.source_digest) == expected_source(engine, fold)
    engine._state.store.put_folds([(fold.source_digest, parts)])  # sound now: kept as it is
    assert path.read_bytes() == good
    engine.close()
    assert state.is_dir()
