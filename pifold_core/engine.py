"""The engine: the small API a host drives (DESIGN §8).

A host appends entries, asks for the projection before each model request, and may peek,
expand, refold or commit. Every change of state is written to the session's append-only
log first, so :meth:`Engine.open` rebuilds the same state, and the same projection byte for
byte, after a restart or a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pifold_core.audit import RequestRecord, WireAudit
from pifold_core.canonical import JsonValue, sha256_hex
from pifold_core.commit import CommitOutcome, Committer
from pifold_core.composition import Composition
from pifold_core.entries import Entry
from pifold_core.evidence import EvidenceStore
from pifold_core.folds import Fold, Forest, ForestError, source_of
from pifold_core.journal import Journal, TornTail
from pifold_core.marks import Mark, MarkLayer
from pifold_core.options import EngineOptions
from pifold_core.peek import PeekError, PeekResult, slice_source
from pifold_core.projection import Projection
from pifold_core.store import FoldStore, StoreObjectCorrupt
from pifold_core.tokens import TiktokenCounter, TokenCounter
from pifold_core.transcript import Transcript
from pifold_core.window import compose

LOG_NAME = "fold-log.jsonl"


class EngineError(ValueError):
    """A request to the engine is invalid; nothing was changed. The message says why."""


@dataclass(frozen=True, slots=True)
class Request:
    """The projection for one model request, and the audit's verdict on it."""

    messages: list[dict[str, JsonValue]]
    """The messages exactly as they are to be sent."""
    digests: list[str]
    """Per-message SHA-256 digests."""
    tokens: int
    """Estimated tokens of the request."""
    record: RequestRecord
    """The wire audit's classification."""
    commit: CommitOutcome | None
    """The commit that ran before this request, if one did."""


class Engine:
    """Lossless folding over one session, persisted under ``state_dir``."""

    def __init__(
        self, state_dir: Path, options: EngineOptions, counter: TokenCounter | None = None
    ) -> None:
        self.state_dir = Path(state_dir)
        self.options = options
        self.transcript = Transcript()
        self.forest = Forest()
        self.projection = Projection(
            self.transcript, self.forest, counter if counter is not None else TiktokenCounter()
        )
        self.marks: dict[str, Mark] = {}
        """Pending marks by id."""
        self.staged_refolds: set[str] = set()
        """Expanded folds that collapse again at the next commit."""
        self.pinned: set[int] = set()
        """Entry indices held raw through every commit."""
        self.audit = WireAudit()
        self.layer = MarkLayer(options)
        self.store = FoldStore(self.state_dir / "store")
        self.evidence = EvidenceStore(self.state_dir / "pi-fold-evidence")
        self.journal = Journal(self.state_dir / LOG_NAME)
        self.commits: list[CommitOutcome] = []
        """Every commit of this process (restored commits are summarised, not kept)."""
        self.commit_count = 0
        self.mark_count = 0
        self._stalled_at: tuple[int, int] | None = None
        self._restoring = False

    # -- opening -------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        state_dir: Path,
        options: EngineOptions | None = None,
        counter: TokenCounter | None = None,
    ) -> Engine:
        """Open a session's state, restoring it when a log exists.

        A logged session keeps the options it was logged with (so its projection is
        unchanged); ``options`` apply to a new session.
        """
        journal = Journal(Path(state_dir) / LOG_NAME)
        records = list(journal.read_all())
        if records and records[0].kind == "open":
            options = EngineOptions.from_record(records[0].body["options"])
        engine = cls(state_dir, options or EngineOptions(), counter)
        engine.journal = journal
        if not records:
            engine.journal.append("open", {"options": engine.options.to_record()}, durable=True)
            return engine
        engine._restore([(record.kind, record.body) for record in records[1:]])
        return engine

    @property
    def torn_tail(self) -> TornTail | None:
        """The torn last log line found (and cut off) on open, if any."""
        return self.journal.torn

    def _restore(self, records: list[tuple[str, dict[str, Any]]]) -> None:
        self._restoring = True
        try:
            for kind, body in records:
                self._replay(kind, body)
        finally:
            self._restoring = False
        self.forest.validate(self.transcript)
        for fold in self.forest.folds.values():
            live = sha256_hex(source_of(self.transcript.entries[fold.start : fold.end]))
            if live != fold.source_digest or not self.store.contains(fold.source_digest):
                raise StoreObjectCorrupt(
                    f"fold {fold.handle} does not match its logged source", fold.source_digest
                )

    def _replay(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "entry":
            entry = Entry.from_record(body["record"])
            self._apply_entry(entry)
            evidence = entry.extra.get("evidence")
            if isinstance(evidence, dict) and isinstance(evidence.get("bytes"), int):
                self.evidence.used_bytes += evidence["bytes"]
        elif kind == "mark":
            mark = Mark.from_record(body["mark"])
            self.marks[mark.id] = mark
            self.mark_count += 1
        elif kind == "commit":
            self._replay_commit(body)
        elif kind == "refold":
            self.staged_refolds.add(str(body["fold"]))
        elif kind == "request":
            record = self.audit.observe(self.projection.digests(), self.projection.tokens)
            if body["prefix"] != _digest_list(self.audit.previous) or (
                body["class"] != record.classification
            ):
                raise StoreObjectCorrupt(
                    f"request {body['n']} does not rebuild byte for byte", str(body["prefix"])
                )

    def _replay_commit(self, body: dict[str, Any]) -> None:
        for handle in body["refolded"]:
            self.forest.collapse(handle)
            self.staged_refolds.discard(handle)
            self.projection.show_fold(self.forest.folds[handle])
        self.staged_refolds.clear()  # a commit spends every staged refold (Committer.run)
        for record in body["folds"]:
            fold = Fold.from_record(record)
            self.forest.add(fold)
            self.projection.show_fold(fold)
        for mark_id in [*body["applied"], *body["dropped"]]:
            self.marks.pop(mark_id, None)
        if body.get("expanded"):
            handle = body["expanded"]
            self.forest.expanded.add(handle)
            self.projection.show_fold(self.forest.folds[handle])
        self.commit_count = int(body["n"])
        self.audit.declare(str(body["cause"]))
        if body["cause"] == "threshold" and body.get("short"):
            self._stalled_at = self._progress_key()  # as prepare_request did when live

    # -- appending ----------------------------------------------------------------------------

    def append(self, entry: Entry) -> Entry:
        """Append one entry; returns it as kept (a large tool result becomes a preview)."""
        self.transcript.check_append(entry)
        outcome = self.evidence.ingest(entry, self.options.evidence_threshold_bytes)
        entry = outcome.entry
        self.journal.append("entry", {"record": entry.to_record()})
        self._apply_entry(entry)
        return entry

    def _apply_entry(self, entry: Entry) -> None:
        self.transcript.append(entry)
        self.projection.append_entry(len(self.transcript) - 1)
        proposals = self.layer.advance(self.transcript, self.forest)
        if self._restoring:
            return  # restored marks come from the log, never from the policy
        for kind, start, end in proposals:
            if self._markable(start, end):
                self.mark_count += 1
                mark = Mark(f"mark-{self.mark_count}", kind, start, end)
                self.journal.append("mark", {"mark": mark.to_record()})
                self.marks[mark.id] = mark

    def _markable(self, start: int, end: int) -> bool:
        if any(m.start == start and m.end == end for m in self.marks.values()):
            return False
        return all(
            start <= root.start and root.end <= end and (root.start, root.end) != (start, end)
            for root in self.forest.root_overlapping(start, end)
        )

    # -- requests and commits -------------------------------------------------------------------

    def prepare_request(self) -> Request:
        """The projection for the next model request; commits first when it is due."""
        commit = None
        if self.projection.tokens >= self.options.max_tokens and not self._stalled():
            commit = self._commit("threshold", target=self.options.min_tokens)
            if commit.short_of_target:
                self._stalled_at = self._progress_key()
        digests = self.projection.digests()
        record = self.audit.observe(digests, self.projection.tokens)
        self.journal.append(
            "request",
            {
                "n": record.number,
                "count": len(digests),
                "prefix": _digest_list(digests),
                "class": record.classification,
            },
        )
        return Request(self.projection.messages(), digests, self.projection.tokens, record, commit)

    def _progress_key(self) -> tuple[int, int]:
        return (self.transcript.eligible_units, self.mark_count)

    def _stalled(self) -> bool:
        """A commit that could not reach its target is not retried until something changes."""
        return self._stalled_at is not None and self._stalled_at == self._progress_key()

    def commit_now(self, cause: str = "command") -> CommitOutcome:
        """Apply every eligible standing mark now (the ``/fold`` command)."""
        return self._commit(cause, target=None)

    def _commit(self, cause: str, target: int | None, expand: Fold | None = None) -> CommitOutcome:
        snapshot = self._snapshot()
        try:
            committer = Committer(
                self.transcript,
                self.forest,
                self.projection,
                self.marks,
                self.options,
                self._pinned_in,
            )
            protect = {expand.handle} if expand is not None else None
            outcome = committer.run(
                self.commit_count + 1, cause, target, self.staged_refolds, protect
            )
            if expand is not None:
                self.forest.expanded.add(expand.handle)
                self.projection.show_fold(expand)
            self.forest.validate_folds([built.fold for built in outcome.built], self.transcript)
            for built in outcome.built:
                self.store.put(built.source)
            self.journal.append(
                "commit",
                {
                    "n": outcome.number,
                    "cause": cause,
                    "folds": [built.fold.to_record() for built in outcome.built],
                    "applied": outcome.applied_marks,
                    "dropped": sorted(outcome.dropped_marks),
                    "refolded": outcome.refolded,
                    "expanded": expand.handle if expand is not None else None,
                    "short": outcome.short_of_target,
                },
                durable=True,
            )
        except BaseException:
            self._restore_snapshot(snapshot)
            raise
        self.commit_count = outcome.number
        self.commits.append(outcome)
        self.audit.declare(f"commit {outcome.number} ({cause})")
        return outcome

    def _pinned_in(self, start: int, end: int) -> bool:
        return bool(self.pinned) and any(index in self.pinned for index in range(start, end))

    def _snapshot(self) -> dict[str, Any]:
        return {
            "forest_lists": (
                dict(self.forest.folds),
                dict(self.forest.parent),
                set(self.forest.expanded),
                list(self.forest._roots),
                list(self.forest._root_starts),
            ),
            "projection": (
                list(self.projection.items),
                list(self.projection._starts),
                self.projection.tokens,
            ),
            "marks": dict(self.marks),
            "refolds": set(self.staged_refolds),
        }

    def _restore_snapshot(self, snapshot: dict[str, Any]) -> None:
        folds, parent, expanded, roots, root_starts = snapshot["forest_lists"]
        self.forest.folds, self.forest.parent, self.forest.expanded = folds, parent, expanded
        self.forest._roots, self.forest._root_starts = roots, root_starts
        items, starts, tokens = snapshot["projection"]
        self.projection.items, self.projection._starts, self.projection.tokens = (
            items,
            starts,
            tokens,
        )
        self.marks.clear()
        self.marks.update(snapshot["marks"])
        self.staged_refolds.clear()
        self.staged_refolds.update(snapshot["refolds"])

    # -- verbs ---------------------------------------------------------------------------------

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
        if "/" in identifier or "\\" in identifier:
            raise PeekError(f"{identifier!r} looks like a path; peek takes ids, never paths")
        if identifier.startswith("fold-"):
            try:
                fold = self.fold(identifier)
            except EngineError as error:
                raise PeekError(str(error)) from None
            return slice_source(identifier, "fold", self.verified_source(fold), offset, length)
        if identifier.startswith("evidence-"):
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

    def expand(self, handle: str) -> CommitOutcome:
        """Restore a fold's source in place, one level; pending marks land in the same rewrite."""
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
        self.fold(handle)
        if handle not in self.forest.expanded:
            raise EngineError(f"fold {handle} is not expanded")
        if handle in self.staged_refolds:
            raise EngineError(f"fold {handle} is already staged to refold")
        self.journal.append("refold", {"fold": handle})
        self.staged_refolds.add(handle)

    # -- reading -------------------------------------------------------------------------------

    def composition(self) -> Composition:
        """What fills the window, for the fold bar."""
        return compose(self.projection, self.forest, self.marks.values(), self.pinned, self.options)

    def close(self) -> None:
        self.journal.close()


def _digest_list(digests: list[str]) -> str:
    """One digest over a request's ordered message digests."""
    return sha256_hex("".join(digests).encode("ascii"))


__all__ = ["Engine", "EngineError", "ForestError", "PeekError", "Request"]
