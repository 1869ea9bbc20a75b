"""The fold forest and fold records: nesting, no partial overlap, call/result pairing."""

from __future__ import annotations

import dataclasses

import pytest

from pifold_core.builder import FoldBuilder
from pifold_core.canonical import parse_json, sha256_hex
from pifold_core.fold_digest import NODE_HEADER, PARTS_DIGEST
from pifold_core.folds import Fold, FoldKind, Forest, ForestError, source_of
from pifold_core.transcript import Transcript
from tests.core.builders import SessionBuilder


def _setup() -> tuple[Transcript, Forest, FoldBuilder]:
    """Three chapters of 7 entries: user, call + 2 results, call + 1 result, closing text."""
    session = SessionBuilder()
    for number in range(3):
        session.chapter(f"ask {number}", [[300, 200], [100]], seed=number)
    transcript = Transcript()
    for entry in session.entries:
        transcript.append(entry)
    forest = Forest()
    return transcript, forest, FoldBuilder(transcript, forest)


def _add(builder: FoldBuilder, kind: FoldKind, start: int, end: int) -> Fold:
    built = builder.build(kind, start, end, commit=1)
    builder.forest.add(built.fold)
    return built.fold


def test_source_is_the_canonical_records_of_the_entries() -> None:
    transcript, _, builder = _setup()
    built = builder.build("span", 0, 7, commit=1)
    source = source_of(transcript.entries[0:7])
    # Named by its parts (issue 23): each entry's digest, in order, under the node's header.
    node = NODE_HEADER + b"".join(
        b"entry %s\n" % e.digest.encode() for e in transcript.entries[0:7]
    )
    assert built.fold.source_digest == sha256_hex(node)
    assert built.fold.digest_version == PARTS_DIGEST
    assert built.fold.source_bytes == len(source)
    assert parse_json(source) == [entry.to_record() for entry in transcript.entries[0:7]]
    assert built.fold.first_id == transcript.entries[0].id
    assert built.fold.last_id == transcript.entries[6].id
    assert built.fold.entry_count == 7
    assert built.fold.tool_call_count == 3


def test_handle_is_content_derived_and_stable() -> None:
    transcript, _, builder = _setup()
    first = builder.build("span", 0, 7, commit=1).fold
    second = FoldBuilder(transcript, Forest()).build("span", 0, 7, commit=7).fold
    assert first.handle == second.handle
    assert first.handle.startswith("fold-") and len(first.handle) == 5 + 12
    assert first.placeholder == second.placeholder
    other = builder.build("span", 7, 14, commit=1).fold
    assert other.handle != first.handle


def test_tool_fold_holds_one_batch_of_results_only() -> None:
    _, _, builder = _setup()
    fold = builder.build("tool", 2, 4, commit=1).fold
    assert fold.kind == "tool" and fold.entry_count == 2
    with pytest.raises(ForestError, match="tool results only"):
        builder.build("tool", 1, 4, commit=1)
    with pytest.raises(ForestError, match="tool results only"):
        builder.build("tool", 3, 6, commit=1)  # crosses into the next batch's call


def test_tool_fold_refuses_results_of_two_batches() -> None:
    session = SessionBuilder()
    first = session.assistant("", [("read", {}), ("bash", {})])
    session.result(first.tool_calls[0], "a")
    second = session.assistant("", [("grep", {})])
    session.result(second.tool_calls[0], "c")
    session.result(first.tool_calls[1], "late b")
    transcript = Transcript()
    for entry in session.entries:
        transcript.append(entry)
    builder = FoldBuilder(transcript, Forest())
    with pytest.raises(ForestError, match="one batch"):
        builder.build("tool", 3, 5, commit=1)


def test_call_and_result_are_never_split() -> None:
    _, _, builder = _setup()
    with pytest.raises(ForestError, match="separate call"):
        builder.build("span", 0, 2, commit=1)
    with pytest.raises(ForestError, match="separate call"):
        builder.build("span", 0, 3, commit=1)
    with pytest.raises(ForestError, match="separate call"):
        builder.build("span", 3, 7, commit=1)
    assert builder.build("span", 0, 4, commit=1).fold.entry_count == 4
    assert builder.build("span", 4, 7, commit=1).fold.entry_count == 3


def test_nesting_children_are_the_roots_inside() -> None:
    transcript, forest, builder = _setup()
    tool = _add(builder, "tool", 2, 4)
    span = _add(builder, "span", 0, 7)
    assert span.children == (tool.handle,)
    assert forest.parent[tool.handle] == span.handle
    assert [root.handle for root in forest.roots()] == [span.handle]
    second = _add(builder, "span", 7, 14)
    deeper = _add(builder, "consolidated", 0, 14)
    assert deeper.children == (span.handle, second.handle)
    assert forest.depth(tool.handle) == 2
    assert [fold.handle for fold in forest.ancestors(tool.handle)] == [span.handle, deeper.handle]
    assert [fold.handle for fold in forest.in_order()] == [
        deeper.handle,
        span.handle,
        tool.handle,
        second.handle,
    ]
    forest.validate(transcript)


def test_partial_overlap_is_refused_and_changes_nothing() -> None:
    transcript, forest, builder = _setup()
    span = _add(builder, "span", 0, 7)
    with pytest.raises(ForestError, match="partially overlaps"):
        builder.build("span", 4, 14, commit=1)
    # Forest.add refuses it too, even when the builder is bypassed.
    built = FoldBuilder(transcript, Forest()).build("span", 4, 14, commit=1)
    with pytest.raises(ForestError, match="partially overlaps"):
        forest.add(built.fold)
    assert list(forest.folds) == [span.handle]
    assert [root.handle for root in forest.roots()] == [span.handle]
    forest.validate(transcript)


def test_children_must_be_exactly_the_roots_inside() -> None:
    transcript, forest, builder = _setup()
    first = _add(builder, "span", 0, 7)
    second = _add(builder, "span", 7, 14)
    built = builder.build("consolidated", 0, 14, commit=2)
    wrong = dataclasses.replace(built.fold, children=(first.handle,))
    with pytest.raises(ForestError, match="names children"):
        forest.add(wrong)
    missing = dataclasses.replace(built.fold, children=())
    with pytest.raises(ForestError, match="names children"):
        forest.add(missing)
    assert [root.handle for root in forest.roots()] == [first.handle, second.handle]
    forest.add(built.fold)
    forest.validate(transcript)


def test_builder_refusals() -> None:
    _, forest, builder = _setup()
    span = _add(builder, "span", 0, 7)
    with pytest.raises(ForestError, match="exactly fold"):
        builder.build("span", 0, 7, commit=1)
    with pytest.raises(ForestError, match="outside"):
        builder.build("span", 0, 99, commit=1)
    with pytest.raises(ForestError, match="at least two"):
        builder.build("consolidated", 0, 14, commit=1)
    with pytest.raises(ForestError, match="already exists"):
        forest.add(span)


def test_validate_catches_broken_rules() -> None:
    transcript, forest, builder = _setup()
    tool = _add(builder, "tool", 2, 4)
    span = _add(builder, "span", 0, 7)
    forest.validate(transcript)

    # A record that no longer matches its entry ids.
    moved = dataclasses.replace(span, first_id="someone-else")
    forest.folds[span.handle] = moved
    with pytest.raises(ForestError, match="entry ids"):
        forest.validate(transcript)
    forest.folds[span.handle] = span

    # A child that names the wrong parent.
    forest.parent[tool.handle] = None
    with pytest.raises(ForestError, match="wrong parent"):
        forest.validate(transcript)
    forest.parent[tool.handle] = span.handle

    # A span fold that separates a call from its result.
    forest.folds[span.handle] = dataclasses.replace(span, end=5, last_id=transcript.entries[4].id)
    with pytest.raises(ForestError, match="separates call"):
        forest.validate(transcript)
    forest.folds[span.handle] = span

    # A tool fold over a non-result entry.
    forest.folds[tool.handle] = dataclasses.replace(
        tool, start=1, first_id=transcript.entries[1].id
    )
    with pytest.raises(ForestError, match="non-result"):
        forest.validate(transcript)
    forest.folds[tool.handle] = tool

    forest.expanded.add("fold-000000000000")
    with pytest.raises(ForestError, match="unknown fold"):
        forest.validate(transcript)
    forest.expanded.clear()
    forest.validate(transcript)


def test_fold_record_round_trip() -> None:
    _, _, builder = _setup()
    fold = builder.build("span", 0, 7, commit=3).fold
    assert Fold.from_record(fold.to_record()) == fold
    record = fold.to_record()
    record["source"] = {**record["source"], "hash": "md5"}
    with pytest.raises(ForestError, match="not supported"):
        Fold.from_record(record)
    with pytest.raises(ForestError, match="malformed"):
        Fold.from_record({"handle": "fold-x"})


def test_expanded_children_collapse_when_swallowed() -> None:
    transcript, forest, builder = _setup()
    first = _add(builder, "span", 0, 7)
    _add(builder, "span", 7, 14)
    forest.expanded.add(first.handle)
    _add(builder, "consolidated", 0, 14)
    assert first.handle not in forest.expanded
    forest.validate(transcript)


def test_collapse_closes_every_expanded_descendant() -> None:
    _, forest, builder = _setup()
    first = _add(builder, "span", 0, 7)
    second = _add(builder, "span", 7, 14)
    parent = _add(builder, "consolidated", 0, 14)
    forest.expanded.update({parent.handle, first.handle})
    assert forest.is_visible_open(first.handle)
    forest.collapse(parent.handle)
    # Reopening the parent later must show one level: the child comes back collapsed.
    assert forest.expanded == set()
    assert forest.is_visible(parent.handle)
    assert not forest.is_visible(second.handle)
