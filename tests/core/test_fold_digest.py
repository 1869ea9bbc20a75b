"""A fold named by its parts' digests (issue 23): a consolidation reads nothing it folds,
and the name still pins every byte, so a damaged part or listing is a loud error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_core.engine import Engine
from pifold_core.entry_list import EntryFacts
from pifold_core.fold_digest import PARTS_DIGEST, NodeKind, node_digest
from pifold_core.merkle import (
    FoldPart,
    ListedPart,
    decode_listing,
    encode_listing,
    listing_digest,
)
from pifold_core.store import StoreObjectCorrupt
from tests.core.builders import CharCounter, random_session, small_options
from tests.core.engine_checks import (
    assert_lossless,
    assert_reopens_identically,
    set_checkpoint_aside,
)


def _counting(reads: list[str], read: Callable[[EntryFacts], object]) -> Callable[..., object]:
    def counted(facts: EntryFacts) -> object:
        reads.append(facts.id)
        return read(facts)

    return counted


def test_a_consolidation_reads_none_of_the_entries_it_folds(tmp_path: Path) -> None:
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    entries = engine.view.transcript.entries
    reads: list[str] = []
    assert entries.loader is not None and entries.record_loader is not None
    # Tests may reach into the state: every read of a released entry goes through these two.
    entries.loader = _counting(reads, entries.loader)  # type: ignore[assignment]
    entries.record_loader = _counting(reads, entries.record_loader)  # type: ignore[assignment]
    consolidations = 0
    for entry in random_session(5, segments=14):
        if entry.kind == "assistant":
            reads.clear()
            request = engine.prepare_request()
            built = request.commit.built if request.commit is not None else []
            consolidated = [b.fold for b in built if b.fold.kind == "consolidated"]
            if consolidated:
                consolidations += 1
                spanned = sum(fold.entry_count for fold in consolidated)
                assert reads == [], f"a consolidation over {spanned} entries read {len(reads)}"
                assert all(fold.digest_version == PARTS_DIGEST for fold in consolidated)
        engine.append(entry)
    assert consolidations >= 2
    assert_lossless(engine)
    assert_reopens_identically(engine)
    engine.close()


def _nested_fold(tmp_path: Path) -> tuple[Engine, str]:
    """A closed session and the digest of a fold that has a child and entries of its own."""
    engine = Engine.open(tmp_path / "state", small_options(budget=6_000), CharCounter())
    for entry in random_session(5, segments=14):
        if entry.kind == "assistant":
            engine.prepare_request()
        engine.append(entry)
    engine.close()
    set_checkpoint_aside(engine.state_dir)  # the reopen checks every object (whole log)
    for fold in engine.view.forest.folds.values():
        parts = decode_listing(_listing(engine, fold.source_digest)[1])
        if fold.children and any(part.kind == "entry" for part in parts):
            return engine, fold.source_digest
    raise AssertionError("no fold with both a child and entries of its own")


def _listing(engine: Engine, digest: str) -> tuple[bytes, bytes]:
    path = engine._state.store.path_of(digest)
    header, _, listing = path.read_bytes().partition(b"\n")
    return header, listing


def _rewrite(engine: Engine, digest: str, parts: list[ListedPart]) -> None:
    """List ``parts`` in the object, its header's listing digest made to match (so only
    the name can tell)."""
    listing = encode_listing([FoldPart(p.kind, p.digest, 0, None, p.span) for p in parts])
    header, old = _listing(engine, digest)
    header = header.replace(listing_digest(old).encode(), listing_digest(listing).encode())
    path = engine._state.store.path_of(digest)
    os.chmod(path, 0o600)
    path.write_bytes(header + b"\n" + listing)


def test_a_listing_that_does_not_hash_to_its_name_is_refused(tmp_path: Path) -> None:
    engine, digest = _nested_fold(tmp_path)
    parts = decode_listing(_listing(engine, digest)[1])
    # Two parts swapped: every byte still verifies against its own digest, in another order.
    swapped = [parts[1], parts[0], *parts[2:]]
    _rewrite(engine, digest, swapped)
    reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert digest in reopened._state.store.damaged
    with pytest.raises(StoreObjectCorrupt, match="hash to another name"):
        reopened._state.store.get(digest)
    reopened.close()


def test_an_entry_line_that_is_not_the_listed_entry_is_refused(tmp_path: Path) -> None:
    engine, digest = _nested_fold(tmp_path)
    parts = decode_listing(_listing(engine, digest)[1])
    entries = [index for index, part in enumerate(parts) if part.kind == "entry"]
    others = [p for p in engine._state.journal.entry_spans.values() if p != parts[entries[0]].span]
    # The right digest, but pointing at another entry's line.
    moved = parts[entries[0]]._replace(span=others[0])
    _rewrite(engine, digest, [*parts[: entries[0]], moved, *parts[entries[0] + 1 :]])
    reopened = Engine.open(engine.state_dir, None, CharCounter(), read_only=True)
    assert digest in reopened._state.store.damaged
    with pytest.raises(StoreObjectCorrupt, match=f"entry {parts[entries[0]].digest}"):
        reopened._state.store.get(digest)
    reopened.close()


digests = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
nodes = st.lists(st.tuples(st.sampled_from(["fold", "entry"]), digests), min_size=1, max_size=6)


@given(nodes, st.data())
def test_a_node_digest_changes_with_any_part_its_kind_or_its_place(
    node: list[tuple[NodeKind, str]], data: st.DataObject
) -> None:
    at = data.draw(st.integers(0, len(node) - 1))
    kind, digest = node[at]
    other: NodeKind = "entry" if kind == "fold" else "fold"
    changed = data.draw(digests.filter(lambda value: value != digest))
    assert node_digest(node) != node_digest([*node[:at], (other, digest), *node[at + 1 :]])
    assert node_digest(node) != node_digest([*node[:at], (kind, changed), *node[at + 1 :]])
    rotated = [*node[1:], node[0]]
    if rotated != node:
        assert node_digest(node) != node_digest(rotated)
