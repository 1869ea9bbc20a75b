"""The engine's verbs on folds, marks and pins (DESIGN §7): peek, expand, refold, pin,
unpin, brief, reboundary and unmark.

:class:`FoldVerbs` is the part of the engine that carries them out over the session state it
is given (an expand lands through the engine's commit), so that ``engine.py`` holds opening,
appending, requests and commits; the engine hands each verb on. Each verb checks and plans
first, writes its one log record, then applies it (the all-or-nothing rule of
:mod:`pifold_core.engine`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from pifold_core.admission import AdmissionError, admit_text
from pifold_core.commit import CommitOutcome
from pifold_core.commit_policy import CommitCall
from pifold_core.engine_errors import EngineError
from pifold_core.entries import looks_like_path
from pifold_core.fold_range import FoldRangeReader, SourceRange
from pifold_core.folds import Fold
from pifold_core.mark_edits import MarkEditError, find_mark, reboundaried, with_brief
from pifold_core.marks import Mark
from pifold_core.peek import PeekError, PeekResult, slice_end, slice_source
from pifold_core.pins import PinError, PinOutcome, plan_pin, plan_unpin
from pifold_core.session_state import SessionState
from pifold_core.store import StoreObjectCorrupt

_EVIDENCE_ID = re.compile(r"evidence-[0-9a-f]{64}")


class FoldVerbs:
    """The verbs of :class:`pifold_core.engine.Engine` on folds, marks and pins."""

    def __init__(self, state: SessionState, commit: CommitCall) -> None:
        self._state = state
        self._commit = commit

    def fold(self, handle: str) -> Fold:
        """The fold named ``handle``, or an error naming it."""
        state = self._state
        if not isinstance(handle, str) or not handle.startswith("fold-"):
            raise EngineError(f"{handle!r} is not a fold id (fold ids look like fold-3f2a9c1b7d4e)")
        fold = state.forest.folds.get(handle)
        if fold is None:
            raise EngineError(f"there is no fold {handle}")
        return fold

    def verified_source(self, fold: Fold) -> bytes:
        """The fold's source from the store, hash-verified and checked against the entries."""
        state = self._state
        data = state.store.get(fold.source_digest)
        # Each entry's record bytes (a released one's read back and checked against its
        # digest, no entry rebuilt): rebuilding 2,000 released entries was two thirds of a
        # large fold's peek (issue 23).
        entries = state.transcript.entries
        records = (entries.record_bytes(index) for index in range(fold.start, fold.end))
        if data != b"[" + b",".join(records) + b"]":
            raise StoreObjectCorrupt(
                f"fold {fold.handle}: stored source differs from the transcript",
                fold.source_digest,
            )
        return data

    def peek(self, identifier: str, offset: int = 0, length: int | None = None) -> PeekResult:
        """Exact, verified bytes of a fold, an entry or an evidence artifact. Moves nothing."""
        state = self._state
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
            if identifier not in state.evidence_ids:
                if not _EVIDENCE_ID.fullmatch(identifier):
                    raise PeekError(f"{identifier!r} is not an evidence id")
                # Well formed but never ours: a wrong id, not a damaged store.
                raise PeekError(f"this session holds no evidence with id {identifier!r}")
            try:
                data = state.evidence.read(identifier)
            except ValueError as error:
                raise PeekError(str(error)) from None
            return slice_source(identifier, "evidence", data, offset, length)
        index = state.transcript.index_of.get(identifier)
        if index is None:
            raise PeekError(f"there is no fold, entry or evidence with id {identifier!r}")
        data = state.transcript.entries[index].record_bytes
        return slice_source(identifier, "entry", data, offset, length)

    def peek_range(self, identifier: str, offset: int, length: int) -> SourceRange:
        """Verified bytes of one range of a source, reading only what the range needs: of a
        fold named by its parts, only the parts it overlaps (:mod:`pifold_core.fold_range`);
        of anything else, what :meth:`peek` reads. Moves nothing."""
        if not isinstance(identifier, str) or not identifier.startswith("fold-"):
            found = self.peek(identifier, offset, length)
            return SourceRange(
                identifier, offset, found.data, found.total_bytes, found.source_digest, 1, 1
            )
        try:
            fold = self.fold(identifier)
        except EngineError as error:
            raise PeekError(str(error)) from None
        end = slice_end(identifier, fold.source_bytes, offset, length)
        state = self._state
        reader = FoldRangeReader(state.store, state.forest.folds, state.transcript.entries)
        return reader.read(fold, offset, end)

    def note_ephemeral_peek(self, call_id: str, identifier: str) -> None:
        """The result of tool call ``call_id`` is a peek copy to withdraw at the next commit.

        Call it (``run_tool`` does) before the host appends that call's result, and only
        after a successful peek of ``identifier``.
        """
        state = self._state
        state.refuse_if_read_only("note_ephemeral_peek")
        if not isinstance(call_id, str) or not call_id:
            raise EngineError("call_id must be a non-empty string")
        try:
            admit_text(call_id, "call_id")
        except AdmissionError as error:
            raise EngineError(str(error)) from None
        if call_id in state.ephemeral or call_id in state.transcript.result_sites:
            raise EngineError(f"call {call_id} already has a result or an ephemeral peek")
        if not isinstance(identifier, str) or not identifier:
            raise EngineError(f"id must be the non-empty id that was peeked, got {identifier!r}")
        if looks_like_path(identifier):
            raise EngineError(f"{identifier!r} looks like a path; peek takes ids, never paths")
        known = (
            identifier in state.forest.folds
            or identifier in state.transcript.index_of
            or identifier in state.evidence_ids
        )
        if not known:
            raise EngineError(f"there is no fold, entry or evidence with id {identifier!r}")
        state.journal.append("ephemeral", {"call": call_id, "id": identifier})
        state.ephemeral[call_id] = identifier

    def expand(self, handle: str) -> CommitOutcome:
        """Restore a fold's source in place, one level; pending marks land in the same rewrite."""
        state = self._state
        state.refuse_if_read_only("expand")
        fold = self.fold(handle)
        if handle in state.forest.expanded:
            raise EngineError(f"fold {handle} is already expanded")
        closed = [
            a.handle
            for a in state.forest.ancestors(handle)
            if a.handle not in state.forest.expanded
        ]
        if closed:
            raise EngineError(
                f"fold {handle} sits inside collapsed fold {closed[-1]}; expand that first"
            )
        self.verified_source(fold)
        return self._commit(f"expand {handle}", target=None, expand=fold)

    def refold(self, handle: str) -> None:
        """Stage an expanded fold to collapse again at the next commit."""
        state = self._state
        state.refuse_if_read_only("refold")
        self.fold(handle)
        if handle not in state.forest.expanded:
            raise EngineError(f"fold {handle} is not expanded")
        if handle in state.staged_refolds:
            raise EngineError(f"fold {handle} is already staged to refold")
        fold = state.forest.folds[handle]
        held = sorted(index for index in state.pinned if fold.start <= index < fold.end)
        if held:
            # The commit would collapse it and open it again at once for the pin.
            names = ", ".join(state.transcript.entries[index].id for index in held[:5])
            raise EngineError(
                f"fold {handle} holds pinned entr{'y' if len(held) == 1 else 'ies'} {names}; "
                "unpin first, a pin keeps every fold around it open"
            )
        state.journal.append("refold", {"fold": handle})
        state.staged_refolds.add(handle)

    def pin(self, ids: Sequence[str]) -> PinOutcome:
        """Hold entries raw through every commit; folded ones show raw from the next commit."""
        state = self._state
        state.refuse_if_read_only("pin")
        try:
            new, outcome = plan_pin(
                ids,
                state.pinned,
                state.transcript,
                state.forest,
                self._raw_tokens,
                self._pin_cap,
                state.projection.views,
            )
        except PinError as error:
            raise EngineError(str(error)) from None
        if new:
            state.journal.append("pin", {"entries": [state.transcript[i].id for i in new]})
            state.pinned.update(new)
        return outcome

    def unpin(self, ids: Sequence[str]) -> PinOutcome:
        """Release pinned entries; nothing moves (they stay raw until something folds them)."""
        state = self._state
        state.refuse_if_read_only("unpin")
        try:
            released, outcome = plan_unpin(
                ids, state.pinned, state.transcript, state.forest, self._raw_tokens, self._pin_cap
            )
        except PinError as error:
            raise EngineError(str(error)) from None
        state.journal.append("unpin", {"entries": [state.transcript[i].id for i in released]})
        state.pinned.difference_update(released)
        refolds = state.release_pin_folds()
        return replace(outcome, refolds=tuple(refolds))

    @property
    def _pin_cap(self) -> int:
        return self._state.options.min_tokens

    def _raw_tokens(self, index: int) -> int:
        return self._state.projection.whole_tokens(index)

    def set_brief(self, mark_id: str, text: str) -> Mark:
        """Write the brief a pending mark's fold will carry. Free until the commit."""
        state = self._state
        state.refuse_if_read_only("brief")
        try:
            if isinstance(text, str):
                text = admit_text(text, "brief")  # the log must read back what was kept
            mark = with_brief(find_mark(state.marks, mark_id), text)
        except (MarkEditError, AdmissionError) as error:
            raise EngineError(str(error)) from None
        state.journal.append("brief", {"id": mark.id, "text": text})
        state.marks[mark.id] = mark
        return mark

    def reboundary(self, mark_id: str, start_id: str, end_id: str) -> Mark:
        """Re-cut a pending mark to ``[start_id, end_id]`` over closed units. Free."""
        state = self._state
        state.refuse_if_read_only("reboundary")
        try:
            mark = reboundaried(
                find_mark(state.marks, mark_id),
                start_id,
                end_id,
                state.transcript,
                state.forest,
                state.options,
            )
        except MarkEditError as error:
            raise EngineError(str(error)) from None
        state.journal.append("reboundary", {"id": mark.id, "start": mark.start, "end": mark.end})
        state.marks[mark.id] = mark
        return mark

    def unmark(self, mark_id: str) -> Mark:
        """Withdraw a pending mark. Free."""
        state = self._state
        state.refuse_if_read_only("unmark")
        try:
            mark = find_mark(state.marks, mark_id)
        except MarkEditError as error:
            raise EngineError(str(error)) from None
        state.journal.append("unmark", {"id": mark.id})
        del state.marks[mark.id]
        return mark
