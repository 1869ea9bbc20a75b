"""Making one fold record from a range: source, handle, brief, placeholder.

A fold is named by its parts' digests (:mod:`pifold_core.fold_digest`, issue 23): each
child's digest and each other entry's, taken from the entries' facts, so a build reads no
entry back and never holds the source; the store lists the fold by the same parts
(:mod:`pifold_core.merkle`). Hashing the whole source instead (digest version 1) read back
every entry a consolidation spanned, which grew with the session's age. Call counts come
from the children and the gaps' facts, and the check for a split call looks at the gaps and
the tool-fold children only, so what a build costs follows its parts, not its span.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from pifold_core.briefs import consolidated_brief, span_brief, tool_brief, validate_supplied_brief
from pifold_core.canonical import sha256_hex
from pifold_core.entries import Entry
from pifold_core.fold_digest import PARTS_DIGEST, parts_digest
from pifold_core.folds import Fold, FoldKind, Forest, ForestError
from pifold_core.identifiers import LATER_ENTRIES
from pifold_core.journal import LogSpan
from pifold_core.placeholders import fold_placeholder
from pifold_core.transcript import Transcript

HANDLE_HEX = 12
"""Hex digits of a handle; lengthened only on a collision."""


@dataclass(frozen=True, slots=True)
class BuiltFold:
    """A fold record made by a commit (stored by its parts before it becomes durable)."""

    fold: Fold
    """The fold, not yet added to the forest."""


class FoldBuilder:
    """Builds fold records over the transcript, checking the forest rules first."""

    def __init__(self, transcript: Transcript, forest: Forest) -> None:
        self.transcript = transcript
        self.forest = forest

    def handle_for(self, kind: FoldKind, digest: str) -> str:
        """``fold-`` plus hex derived from kind and source: the same span gets the same handle."""
        seed = sha256_hex(f"{kind}:{digest}".encode())
        length = HANDLE_HEX
        while True:
            handle = f"fold-{seed[:length]}"
            existing = self.forest.folds.get(handle)
            if existing is None or (existing.kind, existing.source_digest) == (kind, digest):
                return handle
            length += 4

    def check(self, kind: FoldKind, start: int, end: int) -> list[Fold]:
        """Return the roots that would become children, or raise naming the broken rule."""
        entries = self.transcript.entries
        if not 0 <= start < end <= len(entries):
            raise ForestError(f"range [{start},{end}) is outside the transcript")
        overlapping = self.forest.root_overlapping(start, end)
        for root in overlapping:
            if root.start < start or root.end > end:
                raise ForestError(
                    f"range [{start},{end}) partially overlaps fold {root.handle} "
                    f"[{root.start},{root.end})"
                )
            if root.start == start and root.end == end:
                raise ForestError(f"range [{start},{end}) is exactly fold {root.handle}")
        if kind == "tool":
            if overlapping:
                raise ForestError("a tool fold cannot contain other folds")
            if any(entry.kind != "tool_result" for entry in entries[start:end]):
                raise ForestError("a tool fold holds tool results only")
            call_sites = {self.transcript.call_site.get(str(e.call_id)) for e in entries[start:end]}
            if len(call_sites) != 1:
                raise ForestError("a tool fold holds the results of one batch")
        else:
            # Only a gap or a tool fold can link outside: a span or consolidated child was
            # checked when it was built (it keeps each call with its results).
            linking = [c for c in overlapping if c.kind == "tool"]
            near = [i for c in linking for i in range(c.start, c.end)]
            split = self.transcript.split_call_among(
                [*_gaps(start, end, overlapping), *near], start, end
            )
            if split is not None:
                raise ForestError(f"range [{start},{end}) would separate call {split}")
        if kind == "consolidated" and len(overlapping) < 2:
            raise ForestError("a consolidated fold needs at least two child folds")
        return overlapping

    def build(
        self, kind: FoldKind, start: int, end: int, commit: int, brief: str | None = None
    ) -> BuiltFold:
        """Build the record for ``kind`` over ``[start, end)`` (not yet added to the forest)."""
        children = self.check(kind, start, end)
        digest, length = parts_digest(self.transcript.entries, start, end, children)
        handle = self.handle_for(kind, digest)
        if brief is not None:
            text, provenance = validate_supplied_brief(brief), "agent"
        else:
            text, provenance = self.runtime_brief(kind, start, end, children), "runtime"
        transcript = self.transcript
        tool_calls = sum(child.tool_call_count for child in children)
        tool_calls += sum(len(transcript.call_ids(index)) for index in _gaps(start, end, children))
        count = end - start
        fold = Fold(
            handle=handle,
            kind=kind,
            start=start,
            end=end,
            first_id=transcript.id_of(start),
            last_id=transcript.id_of(end - 1),
            children=tuple(child.handle for child in children),
            source_digest=digest,
            source_bytes=length,
            entry_count=count,
            tool_call_count=tool_calls,
            brief=text,
            brief_provenance="agent" if provenance == "agent" else "runtime",
            placeholder=fold_placeholder(handle, kind, text, count, tool_calls, length),
            commit=commit,
            digest_version=PARTS_DIGEST,
        )
        return BuiltFold(fold)

    def runtime_brief(self, kind: FoldKind, start: int, end: int, children: list[Fold]) -> str:
        """The brief the runtime writes for ``kind`` over ``[start, end)`` with ``children``:
        from the span, the entries after it that exist now, and the children's briefs."""
        entries = self.transcript.entries
        # What the agent did after the span, as far as the transcript reaches when the fold
        # is made (the brief is logged with the fold, so a reopen never recomputes it).
        later = entries[end : end + LATER_ENTRIES]
        if kind == "tool":
            call_index = self.transcript.call_site.get(str(entries[start].call_id))
            call = entries[call_index] if call_index is not None else None
            following = self._next_assistant(end)
            return tool_brief(call, entries[start:end], following, later)
        if kind == "span":
            return span_brief(entries[start:end], later)
        gaps: list[Entry] = []
        position = start
        for child in children:
            gaps.extend(entries[position : child.start])
            position = child.end
        gaps.extend(entries[position:end])
        return consolidated_brief([child.brief for child in children], gaps, later)

    def _next_assistant(self, index: int) -> Entry | None:
        entries = self.transcript.entries
        for position in range(index, min(len(entries), index + 4)):
            if entries[position].kind == "assistant":
                return entries[position]
        return None


def _gaps(start: int, end: int, children: Sequence[Fold]) -> Iterator[int]:
    """The indices of ``[start, end)`` that no fold of ``children`` (in order) covers."""
    position = start
    for child in children:
        yield from range(position, child.start)
        position = child.end
    yield from range(position, end)


def release_landed(
    transcript: Transcript, built: Sequence[BuiltFold], lines: Mapping[str, LogSpan]
) -> int:
    """Release from memory the entries the landed folds ``built`` hold (their commit is
    durable, so each line in ``lines`` is too); the count released. A consolidated fold's
    children released theirs already, so only its gaps are left: work follows the span."""
    return sum(transcript.release_span(b.fold.start, b.fold.end, lines) for b in built)
