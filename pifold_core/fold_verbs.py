"""The engine's verbs on folds, marks and pins (DESIGN §7): peek, expand, refold, pin,
unpin, brief, reboundary and unmark.

They are the engine's own methods, kept here so that ``engine.py`` holds opening, appending,
requests and commits. Each verb checks and plans first, writes its one log record, then
applies it (the all-or-nothing rule of :mod:`pifold_core.engine`). The attributes and the
two methods of the engine they use are declared below for the type checker.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pifold_core.admission import AdmissionError, admit_text
from pifold_core.commit import CommitOutcome
from pifold_core.engine_errors import EngineError
from pifold_core.entries import looks_like_path
from pifold_core.evidence import EvidenceStore
from pifold_core.folds import Fold, Forest, source_of
from pifold_core.journal import Journal
from pifold_core.mark_edits import MarkEditError, find_mark, reboundaried, with_brief
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions
from pifold_core.peek import PeekError, PeekResult, slice_source
from pifold_core.pins import PinError, PinOutcome, plan_pin, plan_unpin
from pifold_core.projection import Projection
from pifold_core.store import FoldStore, StoreObjectCorrupt
from pifold_core.transcript import Transcript

_EVIDENCE_ID = re.compile(r"evidence-[0-9a-f]{64}")


class FoldVerbs:
    """The verbs half of :class:`pifold_core.engine.Engine` (a mixin of it, nothing else)."""

    transcript: Transcript
    forest: Forest
    projection: Projection
    store: FoldStore
    evidence: EvidenceStore
    evidence_ids: set[str]
    journal: Journal
    options: EngineOptions
    marks: dict[str, Mark]
    pinned: set[int]
    pin_opened: set[str]
    staged_refolds: set[str]
    ephemeral: dict[str, str]

    if TYPE_CHECKING:

        def _commit(
            self,
            cause: str,
            target: int | None,
            expand: Fold | None = None,
            only: set[str] | None = None,
        ) -> CommitOutcome: ...

        def _refuse_if_read_only(self, verb: str) -> None: ...

    def fold(self, handle: str) -> Fold:
        """The fold named ``handle``, or an error naming it."""
        if not isinstance(handle, str) or not handle.startswith("fold-"):
            raise EngineError(f"{handle!r} is not a fold id (fold ids look like fold-3f2a9c1b7d4e)")
        fold = self.forest.folds.get(handle)
        if fold is None:
            raise EngineError(f"there is no fold {handle}")
        return fold

    def verified_source(self, fold: Fold) -> bytes:
        """The fold's source from the store, hash-verified and checked against the entries."""
        data = self.store.get(fold.source_digest)
        if data != source_of(self.transcript.entries[fold.start : fold.end]):
            raise StoreObjectCorrupt(
                f"fold {fold.handle}: stored source differs from the transcript",
                fold.source_digest,
            )
        return data

    def peek(self, identifier: str, offset: int = 0, length: int | None = None) -> PeekResult:
        """Exact, verified bytes of a fold, an entry or an evidence artifact. Moves nothing."""
        if not isinstance(identifier, str) or not identifier:
            raise PeekError("id must be a non-empty string")
        if looks_like_path(identifier):
            raise PeekError(f"{identifier!r} looks like a path; peek takes ids, never paths")
        if identifier.startswith("fold-"):
            try:
                fold = self.fold(identifier)
            except EngineError as error:
                raise PeekError(str(error)) from None
            return slice_source(identifier, "fold", self.verified_source(fold), offset, length)
        if identifier.startswith("evidence-"):
            if identifier not in self.evidence_ids:
                if not _EVIDENCE_ID.fullmatch(identifier):
                    raise PeekError(f"{identifier!r} is not an evidence id")
                # Well formed but never ours: a wrong id, not a damaged store.
                raise PeekError(f"this session holds no evidence with id {identifier!r}")
            try:
                data = self.evidence.read(identifier)
            except ValueError as error:
                raise PeekError(str(error)) from None
            return slice_source(identifier, "evidence", data, offset, length)
        index = self.transcript.index_of.get(identifier)
        if index is None:
            raise PeekError(f"there is no fold, entry or evidence with id {identifier!r}")
        data = self.transcript.entries[index].record_bytes
        return slice_source(identifier, "entry", data, offset, length)

    def note_ephemeral_peek(self, call_id: str, identifier: str) -> None:
        """The result of tool call ``call_id`` is a peek copy to withdraw at the next commit.

        Call it (``run_tool`` does) before the host appends that call's result, and only
        after a successful peek of ``identifier``.
        """
        self._refuse_if_read_only("note_ephemeral_peek")
        if not isinstance(call_id, str) or not call_id:
            raise EngineError("call_id must be a non-empty string")
        try:
            admit_text(call_id, "call_id")
        except AdmissionError as error:
            raise EngineError(str(error)) from None
        if call_id in self.ephemeral or call_id in self.transcript.result_sites:
            raise EngineError(f"call {call_id} already has a result or an ephemeral peek")
        if not isinstance(identifier, str) or not identifier:
            raise EngineError(f"id must be the non-empty id that was peeked, got {identifier!r}")
        if looks_like_path(identifier):
            raise EngineError(f"{identifier!r} looks like a path; peek takes ids, never paths")
        known = (
            identifier in self.forest.folds
            or identifier in self.transcript.index_of
            or identifier in self.evidence_ids
        )
        if not known:
            raise EngineError(f"there is no fold, entry or evidence with id {identifier!r}")
        self.journal.append("ephemeral", {"call": call_id, "id": identifier})
        self.ephemeral[call_id] = identifier

    def expand(self, handle: str) -> CommitOutcome:
        """Restore a fold's source in place, one level; pending marks land in the same rewrite."""
        self._refuse_if_read_only("expand")
        fold = self.fold(handle)
        if handle in self.forest.expanded:
            raise EngineError(f"fold {handle} is already expanded")
        closed = [
            a.handle for a in self.forest.ancestors(handle) if a.handle not in self.forest.expanded
        ]
        if closed:
            raise EngineError(
                f"fold {handle} sits inside collapsed fold {closed[-1]}; expand that first"
            )
        self.verified_source(fold)
        return self._commit(f"expand {handle}", target=None, expand=fold)

    def refold(self, handle: str) -> None:
        """Stage an expanded fold to collapse again at the next commit."""
        self._refuse_if_read_only("refold")
        self.fold(handle)
        if handle not in self.forest.expanded:
            raise EngineError(f"fold {handle} is not expanded")
        if handle in self.staged_refolds:
            raise EngineError(f"fold {handle} is already staged to refold")
        fold = self.forest.folds[handle]
        held = sorted(index for index in self.pinned if fold.start <= index < fold.end)
        if held:
            # The commit would collapse it and open it again at once for the pin.
            names = ", ".join(self.transcript.entries[index].id for index in held[:5])
            raise EngineError(
                f"fold {handle} holds pinned entr{'y' if len(held) == 1 else 'ies'} {names}; "
                "unpin first, a pin keeps every fold around it open"
            )
        self.journal.append("refold", {"fold": handle})
        self.staged_refolds.add(handle)

    def pin(self, ids: Sequence[str]) -> PinOutcome:
        """Hold entries raw through every commit; folded ones show raw from the next commit."""
        self._refuse_if_read_only("pin")
        try:
            new, outcome = plan_pin(
                ids,
                self.pinned,
                self.transcript,
                self.forest,
                self._raw_tokens,
                self._pin_cap,
                self.projection.views,
            )
        except PinError as error:
            raise EngineError(str(error)) from None
        if new:
            self.journal.append("pin", {"entries": [self.transcript[i].id for i in new]})
            self.pinned.update(new)
        return outcome

    def unpin(self, ids: Sequence[str]) -> PinOutcome:
        """Release pinned entries; nothing moves (they stay raw until something folds them)."""
        self._refuse_if_read_only("unpin")
        try:
            released, outcome = plan_unpin(
                ids, self.pinned, self.transcript, self.forest, self._raw_tokens, self._pin_cap
            )
        except PinError as error:
            raise EngineError(str(error)) from None
        self.journal.append("unpin", {"entries": [self.transcript[i].id for i in released]})
        self.pinned.difference_update(released)
        refolds = self.release_pin_folds()
        return replace(outcome, refolds=tuple(refolds))

    def release_pin_folds(self) -> list[str]:
        """Stage to collapse again the folds a pin opened that hold no pin any more.

        Run by ``unpin`` live and on reopen alike, so it writes no log record of its own.
        """
        released: list[str] = []
        for handle in sorted(self.pin_opened):
            fold = self.forest.folds[handle]
            if not any(fold.start <= index < fold.end for index in self.pinned):
                self.pin_opened.discard(handle)
                if handle in self.forest.expanded:
                    self.staged_refolds.add(handle)
                    released.append(handle)
        return released

    @property
    def _pin_cap(self) -> int:
        return self.options.min_tokens

    def _raw_tokens(self, index: int) -> int:
        return self.projection.whole_tokens(index)

    def set_brief(self, mark_id: str, text: str) -> Mark:
        """Write the brief a pending mark's fold will carry. Free until the commit."""
        self._refuse_if_read_only("brief")
        try:
            if isinstance(text, str):
                text = admit_text(text, "brief")  # the log must read back what was kept
            mark = with_brief(find_mark(self.marks, mark_id), text)
        except (MarkEditError, AdmissionError) as error:
            raise EngineError(str(error)) from None
        self.journal.append("brief", {"id": mark.id, "text": text})
        self.marks[mark.id] = mark
        return mark

    def reboundary(self, mark_id: str, start_id: str, end_id: str) -> Mark:
        """Re-cut a pending mark to ``[start_id, end_id]`` over closed units. Free."""
        self._refuse_if_read_only("reboundary")
        try:
            mark = reboundaried(
                find_mark(self.marks, mark_id),
                start_id,
                end_id,
                self.transcript,
                self.forest,
                self.options,
            )
        except MarkEditError as error:
            raise EngineError(str(error)) from None
        self.journal.append("reboundary", {"id": mark.id, "start": mark.start, "end": mark.end})
        self.marks[mark.id] = mark
        return mark

    def unmark(self, mark_id: str) -> Mark:
        """Withdraw a pending mark. Free."""
        self._refuse_if_read_only("unmark")
        try:
            mark = find_mark(self.marks, mark_id)
        except MarkEditError as error:
            raise EngineError(str(error)) from None
        self.journal.append("unmark", {"id": mark.id})
        del self.marks[mark.id]
        return mark
