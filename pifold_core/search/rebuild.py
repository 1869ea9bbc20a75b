"""What the index should hold, from the session itself: for a commit's upkeep and a rebuild.

The index holds every entry a fold covers (at any depth: a fold's source is its entries'
records, so indexing each entry once covers every fold that holds it), every tool result a
commit clipped, and every tool result kept as an evidence artifact (the window shows only its
preview, so the rest must be searchable from the moment it is appended, not once a fold
hides it). Folds are never removed, so the entries the folds cover are those the root
folds cover now; which results were clipped is read from the commit records of the log, the
same lists a live commit hands its upkeep, so a rebuild holds exactly what the upkeep wrote.

Rows are built from the entries themselves; an entry a fold holds may have been let go from
memory, and reading it back goes through the transcript's verified loader.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping
from pathlib import Path

from pifold_core.blocks import ToolCallBlock
from pifold_core.canonical import parse_json
from pifold_core.entries import Entry
from pifold_core.evidence import EvidenceStore
from pifold_core.folds import Fold, Forest
from pifold_core.journal import parse_line
from pifold_core.search.index import IndexRow, fold_fingerprint
from pifold_core.search.text import call_paths, entry_fields, evidence_of
from pifold_core.store import StoreObjectCorrupt
from pifold_core.transcript import Transcript

_COMMIT_KIND = b'"k":"commit"'
"""How a commit record's line starts (wire form: keys ``n``, ``k``, ``b``, ``c`` in order):
only these lines are parsed when the log is scanned for clipped results."""


def rows_for(
    transcript: Transcript, indices: Iterable[int], evidence: EvidenceStore
) -> list[IndexRow]:
    """One :class:`IndexRow` per entry index, in order (released entries read back, and
    evidence artifacts read, verified)."""
    rows: list[IndexRow] = []
    paths: dict[str, tuple[str, ...]] = {}

    def paths_of(call: ToolCallBlock) -> tuple[str, ...]:
        # A call's paths serve its own entry and the result answering it (both often in one
        # commit's rows): read once. A call id names one call: the transcript refuses an
        # assistant entry reusing one (Transcript.check_append).
        found = paths.get(call.id)
        if found is None:
            found = paths[call.id] = call_paths(call)
        return found

    for index in sorted(set(indices)):
        entry = transcript.entries[index]
        original = original_of(entry, evidence)
        fields = entry_fields(entry, answered_call(transcript, index), original, paths_of)
        rows.append(IndexRow(index, entry.id, fields))
    return rows


def original_of(entry: Entry, evidence: EvidenceStore) -> Entry | None:
    """The original entry an evidence-keeping entry points at, read verified (``None``: the
    entry keeps no evidence)."""
    identifier = evidence_of(entry)
    if identifier is None:
        return None
    try:
        record = parse_json(evidence.read(identifier))
    except ValueError as error:  # not an evidence id: nothing to read
        raise StoreObjectCorrupt(f"entry {entry.id}: {error}", entry.digest) from None
    assert isinstance(record, dict)  # verified: the artifact is the original's record
    return Entry.from_record(record)


def answered_call(transcript: Transcript, index: int) -> ToolCallBlock | None:
    """The tool call the result at ``index`` answers (``None``: not a result, or unknown)."""
    facts = transcript.entries.facts_of(index)
    if facts.kind != "tool_result" or facts.call_id is None:
        return None
    site = transcript.call_site.get(facts.call_id)
    if site is None:
        return None
    for call in transcript.entries[site].tool_calls:
        if call.id == facts.call_id:
            return call
    return None


def evidence_indices(
    transcript: Transcript, start: int, end: int, skip: Container[int] = ()
) -> list[int]:
    """Indices in ``[start, end)`` of entries kept as evidence, but those in ``skip``. Only
    tool results are read (a result outside every fold is held in memory; ``skip`` spares
    reading back the ones a fold holds)."""
    entries = transcript.entries
    return [
        index
        for index in range(start, end)
        if index not in skip
        and transcript.kind_of(index) == "tool_result"
        and evidence_of(entries[index]) is not None
    ]


def folded_indices(forest: Forest) -> Iterator[int]:
    """Every entry index some fold covers."""
    for root in forest.roots():
        yield from range(root.start, root.end)


def clipped_indices(log: Path, commits: int) -> set[int]:
    """Entry indices clipped by the first ``commits`` commit records of ``log``.

    Only commit lines are parsed (each verified by its checksum; a damaged one is skipped:
    the log's own reader refuses a session whose log is damaged before the last line).
    """
    found: set[int] = set()
    try:
        data = log.read_bytes()
    except FileNotFoundError:
        return found
    for line in data.split(b"\n"):
        if _COMMIT_KIND not in line[:48]:
            continue
        record = parse_line(line)
        if record is None or record.kind != "commit":
            continue
        if int(record.body.get("n", 0)) > commits:
            break
        found.update(int(index) for index in record.body.get("clipped", []))
    return found


def roots_before(forest: Forest, built_handles: set[str]) -> list[str]:
    """The root handles before a commit that built ``built_handles``: each new fold stands
    for its children that are older (a new fold's children were roots, or new themselves)."""
    folds: Mapping[str, Fold] = forest.folds

    def older(handle: str) -> Iterator[str]:
        if handle not in built_handles:
            yield handle
            return
        for child in folds[handle].children:
            yield from older(child)

    return [handle for root in forest.roots() for handle in older(root.handle)]


def own_ranges(forest: Forest, handle: str) -> Iterator[tuple[int, int]]:
    """The ``[start, end)`` ranges of fold ``handle`` that none of its child folds covers: its
    own entries. A commit's upkeep reads what the index holds only there: an index built to
    the state before the commit holds every entry of every older fold, and a child the same
    commit built is one of its folds too (a consolidation's own entries are a few gaps, where
    its whole span, read back at each commit, grew with the session)."""
    folds: Mapping[str, Fold] = forest.folds
    fold = folds[handle]
    position = fold.start
    for child in fold.children:
        child_start, child_end = folds[child].span
        if child_start > position:
            yield position, child_start
        position = max(position, child_end)
    if fold.end > position:
        yield position, fold.end


def fingerprint_now(forest: Forest) -> str:
    """:func:`~pifold_core.search.index.fold_fingerprint` of the forest as it stands."""
    return fold_fingerprint(root.handle for root in forest.roots())


__all__ = [
    "answered_call",
    "clipped_indices",
    "evidence_indices",
    "fingerprint_now",
    "folded_indices",
    "original_of",
    "own_ranges",
    "roots_before",
    "rows_for",
]
