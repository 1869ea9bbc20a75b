"""What the engine reports about itself: plain data for the tool, the commands and the UI.

The engine builds these (DESIGN §7 ``status``, §11 ``/fold-status``); renderers turn them
into text. Nothing here reads engine state or changes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pifold_core.composition import FoldCounts, Reading
from pifold_core.host_prefix import PrefixFloor
from pifold_core.journal import TornTail
from pifold_core.runway import Floor

FoldState = Literal["collapsed", "expanded", "hidden"]
"""How a fold shows now: as its placeholder, open one level, or inside a collapsed ancestor."""


@dataclass(frozen=True, slots=True)
class MarkView:
    """One pending mark as a reader sees it."""

    id: str
    """``mark-<n>``."""
    kind: str
    """``tool`` or ``span``: the kind of fold it becomes."""
    start_id: str
    """Id of its first entry."""
    end_id: str
    """Id of its last entry (inclusive)."""
    entries: int
    """Entries it covers."""
    chars: int
    """Characters of content it covers."""
    tokens: int
    """Tokens its range costs in the projection now."""
    brief: str | None
    """A brief written with the ``brief`` action, or ``None`` for the runtime's own."""


@dataclass(frozen=True, slots=True)
class FoldRow:
    """One fold in the tree listing (``status`` with ``detail: "tree"``)."""

    handle: str
    """``fold-`` and 12 hex digits."""
    kind: str
    """``tool``, ``span`` or ``consolidated``."""
    depth: int
    """0 for a root, 1 for its children, and so on."""
    parent: str | None
    """Handle of the enclosing fold, if any."""
    start_id: str
    """Id of the first entry it covers."""
    end_id: str
    """Id of the last entry it covers (inclusive)."""
    entries: int
    """Entries it covers."""
    source_bytes: int
    """Size of its exact source in the store."""
    state: FoldState
    """How it shows in the projection now."""
    staged_refold: bool
    """It is expanded and will collapse again at the next commit."""
    brief_line: str
    """The first line of its brief."""


@dataclass(frozen=True, slots=True)
class Occupancy:
    """How full the window is, and how that figure was obtained (DESIGN §6)."""

    tokens: int
    """Occupancy expected for the next request: the basis of the commit trigger."""
    reading: Reading
    """Whether :attr:`shown_tokens` is measured, estimated after a commit, estimated for want
    of any count, or missing."""
    shown_tokens: int | None
    """The figure a person is shown, equal to :attr:`tokens` whenever there is one: the
    provider's count plus an estimate of what was appended since, or after a commit the
    engine's estimate of the rewritten window; ``None`` before any measurement when the host
    measures."""
    estimated_tokens: int
    """The engine's own tiktoken estimate of the request, uncalibrated: the projection and
    the host's fixed prefix."""
    calibration: float
    """Measured tokens per estimated token, learned from the provider's counts."""
    prefix_tokens: int = 0
    """Of :attr:`estimated_tokens`, the host's fixed prefix (system prompt and tools) as the
    host stated it (``Engine.set_host_prefix``; 0: not stated)."""


@dataclass(frozen=True, slots=True)
class AuditView:
    """The wire audit's running counts."""

    requests: int
    appends: int
    attributed: int
    unattributed: int


@dataclass(frozen=True, slots=True)
class CommitView:
    """What the last commit did."""

    number: int
    cause: str
    tokens_before: int
    tokens_after: int
    folds_made: int
    marks_applied: int
    clipped: int
    """Tool results clipped by this commit."""
    withdrawn: int
    """Ephemeral peek copies withdrawn by this commit."""
    pins_landed: int
    """Staged pins of folded entries restored by this commit."""
    short_reason: str | None
    """Why the commit stopped above its target, when it did."""
    request: int = 0
    """The model request it ran before (1-based): when, in the session's own terms."""
    entries: int = 0
    """Entries in the transcript when it ran."""
    newest_timestamp_ms: int | None = None
    """Timestamp of the newest entry when it ran (the host's clock), if there was one."""

    @classmethod
    def from_record(
        cls, body: dict[str, Any], request: int, entries: int, newest_timestamp_ms: int | None
    ) -> CommitView:
        """The view of a commit from its log record, before request ``request`` with
        ``entries`` entries in the transcript (the live commit and a reopen alike)."""
        return cls(
            number=int(body["n"]),
            cause=str(body["cause"]),
            tokens_before=int(body.get("tokensBefore", 0)),  # absent from logs before 2026-11-30
            tokens_after=int(body.get("tokensAfter", 0)),
            folds_made=len(body["folds"]),
            marks_applied=len(body["applied"]),
            clipped=len(body.get("clipped", [])),
            withdrawn=len(body.get("withdrawn", [])),
            pins_landed=len(body.get("pinOpened", [])),
            short_reason=body.get("shortReason"),
            request=request,
            entries=entries,
            newest_timestamp_ms=newest_timestamp_ms,
        )


@dataclass(frozen=True, slots=True)
class DamagedObject:
    """A fold's store object or an evidence artifact found missing or corrupt on read.

    The rest of the session works; touching this one (peek, expand) raises the loud
    ``StoreObjectMissing`` or ``StoreObjectCorrupt`` naming it. ``pifold doctor --repair``
    rewrites a fold's object from the log's entries.
    """

    id: str
    """The fold handle or evidence id concerned."""
    kind: Literal["fold", "evidence"]
    """Which of the two it is."""
    digest: str
    """The SHA-256 the object is stored under."""
    problem: Literal["missing", "corrupt"]
    """Gone, or there but not the bytes it must hold."""
    message: str
    """The error touching it raises."""


@dataclass(frozen=True, slots=True)
class EngineStatus:
    """Everything ``status`` reports."""

    budget: int
    """The serving budget in tokens."""
    max_tokens: int
    """Occupancy at which a commit fires (``maxTarget`` × budget)."""
    min_tokens: int
    """Occupancy a commit aims for (``minTarget`` × budget)."""
    occupancy: Occupancy
    """How full the window is."""
    counts: FoldCounts
    """Visible folds by kind, pending marks and pinned entries."""
    total_folds: int
    """Every fold in the forest, nested ones included."""
    marks: tuple[MarkView, ...]
    """Pending marks, stalest first."""
    marked_tokens: int
    """Tokens the marked ranges cost now (what the next commit can free, at most)."""
    pins: tuple[str, ...]
    """Ids of pinned entries, in transcript order."""
    staged_pins: tuple[str, ...]
    """Pinned entries still inside collapsed folds: restored at the next commit."""
    pinned_tokens: int
    """Raw tokens the pinned entries cost."""
    pin_cap_tokens: int
    """Most tokens pins may hold (``minTarget`` × budget)."""
    staged_refolds: tuple[str, ...]
    """Expanded folds that collapse again at the next commit."""
    clipped: int
    """Tool results shown clipped now."""
    audit: AuditView
    """Appends and rewrites so far."""
    commits: int
    """Commits so far."""
    last_commit: CommitView | None
    """The most recent commit of this process, if any."""
    stalled_reason: str | None
    """Set when the last threshold commit could not reach its target: what blocks it."""
    folding_stopped: str | None
    """Set when folding stopped after an error: the error."""
    torn_tail: TornTail | None = None
    """What opening cut off the end of the log (a torn last write): its line and bytes."""
    damaged: tuple[DamagedObject, ...] = ()
    """Store objects and evidence found missing or corrupt, folds in transcript order."""
    commit_history: tuple[CommitView, ...] = ()
    """Every commit of the session, oldest first (live and restored from the log alike)."""
    clipped_total: int = 0
    """Tool results clipped by every commit of the session (some folded since)."""
    evidence_bytes: int = 0
    """Bytes of evidence artifacts the session holds."""
    evidence_cap_bytes: int = 0
    """Most bytes of evidence the session may hold."""
    store_objects: int = 0
    """Fold sources in the store (content-addressed: folds of the same bytes share one)."""
    store_bytes: int = 0
    """Bytes of those sources."""
    max_depth: int = 0
    """Deepest nesting of folds: 0 with none, 1 with only roots, 2 with a child, ..."""
    floor: Floor | None = None
    """Set when the last threshold commit was held back for want of runway: the floor that
    blocks it (host prompt, pins, fresh tail) and the budget that would work."""
    prefix_floor: PrefixFloor | None = None
    """Set when the host's fixed prefix alone sits above the commit aim or the budget: no
    fold can bring a request under it (:mod:`pifold_core.host_prefix`)."""
