"""Marks: staged folds laid by the runtime as units close (DESIGN §5).

A mark records where a fold should happen. It lives in durable state outside the window, so
laying one moves no byte; a commit later applies many marks in one rewrite.

The runtime lays two kinds, stalest first, as closed units leave the fresh tail:

* a **tool mark** on the results of a closed tool batch whose results are large enough
  (``min_fold_chars``), unless one of its tools is blacklisted;
* a **span mark** over a run of closed units: at the end of a chapter (the next user message
  closes it), or, inside one long agentic turn, each time the run reaches the cut size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

from pifold_core.canonical import JsonValue
from pifold_core.folds import Forest
from pifold_core.options import EngineOptions
from pifold_core.transcript import Transcript, Unit

MarkKind = Literal["tool", "span"]


@dataclass(frozen=True, slots=True)
class Mark:
    """A pending fold."""

    id: str
    """``mark-<n>``."""
    kind: MarkKind
    """The kind of fold it becomes."""
    start: int
    """First entry index."""
    end: int
    """One past the last entry index."""
    brief: str | None = None
    """A supplied brief, or ``None`` for the runtime's deterministic one."""

    def to_record(self) -> dict[str, JsonValue]:
        return {
            "id": self.id,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "brief": self.brief,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Mark:
        return cls(
            id=str(record["id"]),
            kind=cast(MarkKind, record["kind"]),
            start=int(record["start"]),
            end=int(record["end"]),
            brief=record.get("brief"),
        )

    def overlaps(self, start: int, end: int) -> bool:
        return self.start < end and start < self.end


class MarkLayer:
    """Walks closed units once, in order, and proposes marks for them."""

    def __init__(self, options: EngineOptions) -> None:
        self.options = options
        self.next_unit = 0
        """Units before this index have been considered."""
        self._run_start: int | None = None
        self._run_end = 0
        self._run_chars = 0
        self._run_chapter = -2

    def set_options(self, options: EngineOptions) -> None:
        """Propose marks under ``options`` from now on (a settings change)."""
        self.options = options

    def run_state(self) -> list[int | None]:
        """Where the walk stands: the next unit and the open run (start, end, characters,
        chapter), what a checkpoint keeps (:mod:`pifold_core.checkpoint`)."""
        return [self.next_unit, self._run_start, self._run_end, self._run_chars, self._run_chapter]

    def restore_run_state(self, state: list[int | None]) -> None:
        """Take back what :meth:`run_state` gave (a checkpoint's reopen)."""
        next_unit, run_start, run_end, run_chars, run_chapter = state
        if not all(
            isinstance(value, int) for value in (next_unit, run_end, run_chars, run_chapter)
        ):
            raise ValueError(f"a mark layer's state is five whole numbers, got {state!r}")
        if run_start is not None and not isinstance(run_start, int):
            raise ValueError(f"a mark layer's run start is a whole number, got {run_start!r}")
        self.next_unit, self._run_start = int(next_unit or 0), run_start
        self._run_end, self._run_chars = int(run_end or 0), int(run_chars or 0)
        self._run_chapter = int(run_chapter or 0)

    def advance(self, transcript: Transcript, forest: Forest) -> list[tuple[MarkKind, int, int]]:
        """Consider every unit that left the fresh tail since the last call."""
        proposals: list[tuple[MarkKind, int, int]] = []
        limit = transcript.eligible_units
        while self.next_unit < limit:
            unit = transcript.units[self.next_unit]
            self.next_unit += 1
            self._consider(unit, transcript, forest, proposals)
        return proposals

    def _consider(
        self,
        unit: Unit,
        transcript: Transcript,
        forest: Forest,
        proposals: list[tuple[MarkKind, int, int]],
    ) -> None:
        entries = transcript.entries
        blacklisted = self._blacklisted(unit, transcript)
        if unit.chapter != self._run_chapter or blacklisted:
            self._close_run(forest, proposals, chapter_ended=True)
            self._run_chapter = unit.chapter
        if blacklisted:
            return
        if unit.end - unit.start > 1 and entries[unit.start].kind == "assistant":
            results = transcript.size_chars(unit.start + 1, unit.end)
            if results >= self.options.thresholds.min_fold_chars:
                proposals.append(("tool", unit.start + 1, unit.end))
        if self._run_start is None:
            self._run_start = unit.start
            self._run_chars = 0
        self._run_end = unit.end
        self._run_chars += transcript.size_chars(unit.start, unit.end)
        if self._run_chars >= self.options.span_cut_chars:
            self._close_run(forest, proposals, chapter_ended=False)

    def _close_run(
        self, forest: Forest, proposals: list[tuple[MarkKind, int, int]], chapter_ended: bool
    ) -> None:
        start, end = self._run_start, self._run_end
        self._run_start = None
        if start is None or start >= end:
            return
        # A commit's top-up may already have folded the beginning of this run: start after it.
        for root in forest.root_overlapping(start, end):
            if root.start < start:
                start = max(start, root.end)
            elif root.end > end:
                return
        if start >= end:
            return
        if self._run_chars >= self.options.thresholds.min_fold_chars or not chapter_ended:
            proposals.append(("span", start, end))

    def _blacklisted(self, unit: Unit, transcript: Transcript) -> bool:
        if not self.options.blacklist:
            return False
        first = transcript.entries[unit.start]
        names = {call.name for call in first.tool_calls}
        names.update(
            str(entry.tool_name)
            for entry in transcript.entries[unit.start : unit.end]
            if entry.kind == "tool_result"
        )
        return bool(names & self.options.blacklist)
