"""The bounded peek (:meth:`Engine.peek_range`): exactly the bytes a whole peek would give
for the range, verified, reading only the parts the range overlaps (issue 23)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pifold_core.engine import Engine
from pifold_core.fold_digest import PARTS_DIGEST, SOURCE_DIGEST
from pifold_core.folds import Fold
from pifold_core.peek import PeekError
from pifold_core.store import StoreObjectCorrupt
from tests.core.builders import CharCounter, SessionBuilder, drive, expected_source
from tests.core.engine_checks import folded_engine
from tests.core.legacy_state.make_state import FOLDER


def _ranges(total: int) -> list[tuple[int, int]]:
    """Offsets and lengths across a source: its edges, single bytes, and long strides."""
    found = {(0, total), (0, 1), (total - 1, 1), (total - 1, 50), (0, 4096)}
    for offset in range(0, total, max(1, total // 97)):
        for length in (1, 2, 37, 1_000, total):
            found.add((offset, length))
    return sorted(found)


def _assert_ranges_match(engine: Engine, fold: Fold) -> None:
    source = expected_source(engine, fold)
    for offset, length in _ranges(len(source)):
        found = engine.peek_range(fold.handle, offset, length)
        assert found.data == source[offset : offset + length], (fold.handle, offset, length)
        assert (found.offset, found.total_bytes) == (offset, len(source))
        assert found.digest == fold.source_digest


def _largest(engine: Engine) -> Fold:
    return max(engine.view.forest.folds.values(), key=lambda fold: fold.end - fold.start)


def test_every_range_of_every_fold_is_the_whole_sources_slice(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    folds = engine.view.forest.folds.values()
    assert any(fold.children for fold in folds), "no nested fold to read through"
    assert all(fold.digest_version == PARTS_DIGEST for fold in folds)
    for fold in folds:
        _assert_ranges_match(engine, fold)
    engine.close()


def test_a_range_reads_only_the_entries_it_overlaps(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    fold = _largest(engine)
    first = engine.view.transcript.entries[fold.start].record_bytes
    head = engine.peek_range(fold.handle, 0, len(first) + 1)  # "[" and the first record
    assert head.entries_read == 1 and head.entries_total == fold.entry_count > 1
    whole = engine.peek_range(fold.handle, 0, fold.source_bytes)
    assert whole.entries_read == fold.entry_count
    assert whole.data == engine.peek(fold.handle).data
    engine.close()


def _damage_entry_line(engine: Engine, index: int) -> str:
    """Flip a byte inside entry ``index``'s log line; returns the entry's digest."""
    entry = engine.view.transcript.entries[index]
    span = engine._state.journal.entry_spans[entry.id]
    log = engine._state.journal.path
    data = bytearray(log.read_bytes())
    data[span.offset + span.length - 5] ^= 0x04  # inside the line's checksum
    log.write_bytes(bytes(data))
    return entry.digest


def test_a_damaged_entry_in_the_range_is_a_loud_error_and_one_outside_is_not_read(
    tmp_path: Path,
) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    fold = _largest(engine)
    source = expected_source(engine, fold)
    digest = _damage_entry_line(engine, fold.end - 1)  # the last entry the fold holds
    head = engine.peek_range(fold.handle, 0, 100)
    assert head.data == source[:100]  # verified from parts the damage does not touch
    with pytest.raises(StoreObjectCorrupt, match=f"entry {digest}"):
        engine.peek_range(fold.handle, len(source) - 10, 10)
    assert digest in engine._state.store.damaged
    with pytest.raises(StoreObjectCorrupt, match=f"entry {digest}"):
        engine.peek(fold.handle)  # the whole peek reads everything, as before
    engine.close()


def test_a_damaged_listing_is_a_loud_error(tmp_path: Path) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    fold = _largest(engine)
    path = engine._state.store.path_of(fold.source_digest)
    data = bytearray(path.read_bytes())
    data[-10] = ord("0") if data[-10] != ord("0") else ord("1")  # a hex digit of the last part
    os.chmod(path, 0o600)
    path.write_bytes(bytes(data))
    with pytest.raises(StoreObjectCorrupt, match=fold.source_digest):
        engine.peek_range(fold.handle, 0, 10)
    assert fold.source_digest in engine._state.store.damaged
    engine.close()


def test_a_listing_of_other_parts_named_rightly_is_refused(tmp_path: Path) -> None:
    """A sound object of another fold put under this fold's name: the listing no longer
    hashes to the name, so nothing of it is shown."""
    engine, _ = folded_engine(tmp_path, count=4)
    folds = sorted(engine.view.forest.folds.values(), key=lambda fold: fold.start)
    one, other = folds[0], folds[-1]
    assert one.source_digest != other.source_digest
    store = engine._state.store
    target = store.path_of(one.source_digest)
    os.chmod(target, 0o600)
    shutil.copyfile(store.path_of(other.source_digest), target)
    with pytest.raises(StoreObjectCorrupt, match=one.source_digest):
        engine.peek_range(one.handle, 0, 10)
    engine.close()


def test_ranges_outside_the_source_are_refused_and_other_ids_peek_as_before(
    tmp_path: Path,
) -> None:
    engine, _ = folded_engine(tmp_path, count=4)
    fold = _largest(engine)
    with pytest.raises(PeekError, match="outside"):
        engine.peek_range(fold.handle, fold.source_bytes, 10)
    with pytest.raises(PeekError, match="bytes"):
        engine.peek_range(fold.handle, 0, 0)
    with pytest.raises(PeekError, match="no fold"):
        engine.peek_range("fold-000000000000", 0, 10)
    entry = engine.view.transcript.entries[-1]
    found = engine.peek_range(entry.id, 3, 20)
    whole = engine.peek(entry.id)
    assert found.data == whole.data[3:23] and found.digest == whole.source_digest
    engine.close()


def test_an_old_states_folds_are_read_whole_and_new_folds_over_them_in_parts(
    tmp_path: Path,
) -> None:
    """Folds named by their whole source (every state before issue 23) are verified whole;
    a new fold holding them reads its own parts and each old child whole."""
    folder = tmp_path / "state"
    shutil.copytree(FOLDER, folder)
    engine = Engine.open(folder, None, CharCounter())
    old = set(engine.view.forest.folds)
    builder = SessionBuilder(prefix="g")
    for number in range(6):
        sizes = [[400 + 150 * number, 900], [1_200], [700, 300, 1_100]]
        builder.chapter(f"Task g{number}: fix src/more_{number}.py", sizes, seed=number)
    drive(engine, builder.entries)
    engine.prepare_request()
    folds = engine.view.forest.folds
    assert any(folds[handle].digest_version == SOURCE_DIGEST for handle in old)
    over = [fold for fold in folds.values() if fold.handle not in old and set(fold.children) & old]
    assert over and all(fold.digest_version == PARTS_DIGEST for fold in over)
    for fold in folds.values():
        _assert_ranges_match(engine, fold)
    engine.close()
