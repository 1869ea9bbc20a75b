"""Fold objects as Merkle nodes: each entry's bytes stored once, every level verified."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_core.canonical import sha256_hex
from pifold_core.journal import LogSpan
from pifold_core.merkle import (
    FoldPart,
    ListedPart,
    assemble,
    decode_listing,
    encode_listing,
    inside,
    listed,
    source_length,
)
from pifold_core.store import FoldStore, StoreObjectCorrupt, StoreObjectMissing
from tests.core.engine_checks import assert_clean_audit, assert_lossless, folded_engine


def _leaf(data: bytes) -> FoldPart:
    return FoldPart("leaf", sha256_hex(data), len(data), data)


def _put_fold(store: FoldStore, parts: list[FoldPart], insides: list[bytes]) -> FoldPart:
    """Store a fold of ``parts`` (whose insides are given) and return it as a part."""
    source = assemble(insides)
    digest = sha256_hex(source)
    store.put_fold(digest, parts)
    return FoldPart("fold", digest, len(source))


def _nested(store: FoldStore) -> tuple[FoldPart, FoldPart, list[bytes]]:
    """A child fold of two leaves inside a parent with a leaf on either side."""
    records = [b'{"id":"a"}', b'{"id":"b","text":"x"}', b'{"id":"c"}', b'{"id":"d"}']
    child = _put_fold(store, [_leaf(records[1]), _leaf(records[2])], records[1:3])
    parts = [_leaf(records[0]), child, _leaf(records[3])]
    parent = _put_fold(store, parts, records)
    return child, parent, records


def _damage(path: Path, data: bytes | None) -> None:
    os.chmod(path, 0o600)
    if data is None:
        path.unlink()
    else:
        path.write_bytes(data)


def test_a_nested_fold_reassembles_byte_for_byte_and_stores_each_leaf_once(
    tmp_path: Path,
) -> None:
    store = FoldStore(tmp_path / "store")
    child, parent, records = _nested(store)
    assert store.get(parent.digest) == b"[" + b",".join(records) + b"]"
    assert store.get(child.digest) == b"[" + b",".join(records[1:3]) + b"]"
    parent_file = store.path_of(parent.digest).read_bytes()
    assert parent_file.startswith(b"pifold-object format=3 hash=sha256 bytes=")
    assert [part.kind for part in decode_listing(parent_file.split(b"\n", 1)[1])] == [
        "leaf",
        "fold",
        "leaf",
    ]
    # Four leaves and two fold objects: the child's leaves are not repeated by the parent.
    assert sum(1 for _ in store.object_paths()) == 6
    for record in records:
        assert store.path_of(sha256_hex(record)).is_file()


def test_a_damaged_leaf_is_named_by_every_fold_that_needs_it(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    child, parent, records = _nested(store)
    leaf = sha256_hex(records[1])
    _damage(store.path_of(leaf), store.path_of(leaf).read_bytes().replace(b"x", b"y"))
    for digest in (parent.digest, child.digest, leaf):
        with pytest.raises(StoreObjectCorrupt, match=leaf):
            store.get(digest)
    assert {parent.digest, child.digest, leaf} <= set(store.damaged)
    assert store.get(sha256_hex(records[0])) == records[0]  # the others still read


def test_a_missing_child_fold_is_named(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    child, parent, _ = _nested(store)
    _damage(store.path_of(child.digest), None)
    with pytest.raises(StoreObjectMissing, match=child.digest):
        store.get(parent.digest)
    assert store.own_error(parent.digest) is None  # the parent's own object is sound


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data.replace(b"\nleaf ", b"\nfold ", 1),  # listing edited
        lambda data: data.replace(b"bytes=", b"bytes=1", 1),  # wrong source length
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data.replace(b"format=3", b"format=7", 1),
    ],
    ids=["listing", "length", "truncated", "format"],
)
def test_a_damaged_fold_object_is_named(tmp_path: Path, change: object) -> None:
    store = FoldStore(tmp_path / "store")
    _, parent, _ = _nested(store)
    path = store.path_of(parent.digest)
    assert callable(change)
    _damage(path, change(path.read_bytes()))
    with pytest.raises(StoreObjectCorrupt, match=parent.digest):
        store.get(parent.digest)
    assert parent.digest in store.damaged


def test_a_listing_edited_with_its_header_still_fails_on_the_whole_source(
    tmp_path: Path,
) -> None:
    """Even a consistent but wrong listing is caught: the reassembly must hash to the name."""
    store = FoldStore(tmp_path / "store")
    child, parent, records = _nested(store)
    swapped = [FoldPart("fold", child.digest, child.length), _leaf(records[0]), _leaf(records[3])]
    path = store.path_of(parent.digest)
    _damage(path, None)
    # A repair from the wrong parts is refused before anything is written.
    with pytest.raises(StoreObjectCorrupt, match="reassemble"):
        store.rewrite_fold(parent.digest, swapped, tmp_path / "quarantine")
    assert not path.exists()


def test_old_whole_source_objects_still_read_and_can_be_children(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    records = [b'{"id":"a"}', b'{"id":"b"}', b'{"id":"c"}']
    old_source = b"[" + b",".join(records[:2]) + b"]"
    old = store.put(old_source)  # how every fold was stored before Merkle objects (format 1)
    assert store.path_of(old).read_bytes().startswith(b"pifold-object format=1 ")
    assert store.get(old) == old_source
    parent = _put_fold(store, [FoldPart("fold", old, len(old_source)), _leaf(records[2])], records)
    assert store.get(parent.digest) == b"[" + b",".join(records) + b"]"


def test_put_fold_refuses_a_missing_child_and_a_leaf_without_bytes(tmp_path: Path) -> None:
    store = FoldStore(tmp_path / "store")
    ghost = FoldPart("fold", "0" * 64, 10)
    with pytest.raises(StoreObjectMissing, match="0" * 64):
        store.put_fold("1" * 64, [ghost])
    with pytest.raises(ValueError, match="has no bytes"):
        store.put_fold("1" * 64, [FoldPart("leaf", "2" * 64, 3)])
    assert not store.path_of("1" * 64).exists()


@settings(max_examples=40, deadline=None)
@given(
    records=st.lists(st.binary(min_size=1, max_size=40), min_size=2, max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=11), max_size=3),
)
def test_any_nesting_reassembles_the_flat_source(
    tmp_path_factory: pytest.TempPathFactory, records: list[bytes], cuts: list[int]
) -> None:
    """Folding any contiguous run into a child never changes the source's bytes."""
    store = FoldStore(tmp_path_factory.mktemp("store"))
    flat = b"[" + b",".join(records) + b"]"
    parts = [_leaf(record) for record in records]
    insides = list(records)
    for cut in cuts:  # repeatedly fold two adjacent parts into a child fold
        if len(parts) < 2:
            break
        at = cut % (len(parts) - 1)
        child = _put_fold(store, parts[at : at + 2], insides[at : at + 2])
        assert store.get(child.digest) == assemble(insides[at : at + 2])
        parts[at : at + 2] = [child]
        insides[at : at + 2] = [inside(store.get(child.digest))]
    assert source_length(parts) == len(flat)
    whole = _put_fold(store, parts, insides)
    assert whole.digest == sha256_hex(flat) and store.get(whole.digest) == flat


def test_an_engine_session_keeps_each_entry_once_in_its_log_line(tmp_path: Path) -> None:
    """The store writes no leaf: every fold object names its entries' lines in the log."""
    engine, _ = folded_engine(tmp_path, count=6)
    assert any(fold.children for fold in engine.view.forest.folds.values())  # nested folds
    assert_lossless(engine)
    assert_clean_audit(engine)
    listed: list[ListedPart] = []
    for path, _ in engine._state.store.object_paths():
        data = path.read_bytes()
        assert data.startswith(b"pifold-object format=4 ")  # no leaf object, no old fold
        listed.extend(decode_listing(data.split(b"\n", 1)[1]))
    folded = {
        index for fold in engine.view.forest.folds.values() for index in range(fold.start, fold.end)
    }
    entries = [part for part in listed if part.kind == "entry"]
    # Each folded entry listed exactly once however deep the nesting, by its own log line.
    assert sorted(part.digest for part in entries) == sorted(
        engine.view.transcript.entries[index].digest for index in folded
    )
    by_digest = {entry.digest: entry for entry in engine.view.transcript.entries}
    for part in entries:
        entry = by_digest[part.digest]
        assert part.span == engine._state.journal.entry_spans[entry.id]
        assert part.span is not None
        assert engine._state.journal.read_entry(part.span, part.digest) == entry.record_bytes
    engine.close()


@settings(max_examples=60, deadline=None)
@given(
    parts=st.lists(
        st.tuples(
            st.sampled_from(["leaf", "fold", "entry"]),
            st.binary(min_size=1, max_size=8),
            st.integers(min_value=0, max_value=10**12),
            st.integers(min_value=1, max_value=10**9),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_a_listing_decodes_to_exactly_the_parts_it_encodes(
    parts: list[tuple[str, bytes, int, int]],
) -> None:
    built = [
        FoldPart(
            "entry" if kind == "entry" else "leaf" if kind == "leaf" else "fold",
            sha256_hex(seed),
            length,
            None,
            LogSpan(offset, length) if kind == "entry" else None,
        )
        for kind, seed, offset, length in parts
    ]
    assert decode_listing(encode_listing(built)) == listed(built)


def test_an_entry_part_without_its_line_cannot_be_listed() -> None:
    with pytest.raises(ValueError, match="no line in the log"):
        encode_listing([FoldPart("entry", "0" * 64, 3)])
