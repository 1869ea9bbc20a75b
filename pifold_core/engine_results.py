"""What the engine hands back from a request, from overflow recovery and from opening a
session (DESIGN §8)."""

from __future__ import annotations

from dataclasses import dataclass

from pifold_core.audit import RequestRecord
from pifold_core.canonical import JsonValue
from pifold_core.commit import CommitOutcome


@dataclass(frozen=True, slots=True)
class Request:
    """The projection for one model request, and the audit's verdict on it."""

    messages: list[dict[str, JsonValue]]
    """The messages exactly as they are to be sent: serialise each with
    :func:`pifold_core.canonical.wire_bytes` (``json.dumps(message, ensure_ascii=False,
    separators=(",", ":"))``, keys in the order given) and the bytes are the same after a
    restart."""
    digests: list[str]
    """Per-message SHA-256 digests of exactly those wire bytes."""
    tokens: int
    """Estimated tokens of the request (the engine's own count)."""
    record: RequestRecord
    """The wire audit's classification."""
    commit: CommitOutcome | None
    """The commit that ran before this request, if one did."""
    expected_tokens: int = 0
    """Occupancy expected for it: the last measurement moved by the calibrated estimate."""


@dataclass(frozen=True, slots=True)
class OverflowRecovery:
    """What overflow recovery did, and whether the retry now fits."""

    commit: CommitOutcome
    """The commit it ran."""
    expected_tokens: int
    """Occupancy expected for the retried request."""
    fits: bool
    """Whether that is within the serving budget."""


@dataclass(frozen=True, slots=True)
class OpenReport:
    """What opening a session did (issue 23): how much of the log it replayed and how many
    folds it checked again, so a host or a test sees what a reopen cost in the engine's own
    terms. A session a writer closed cleanly reopens from the checkpoint its close wrote
    and replays nothing."""

    checkpoint_records: int = 0
    """Log records the checkpoint it started from covered (0: none was used)."""
    replayed_records: int = 0
    """Log records replayed: those past the checkpoint, or the whole log without one."""
    checked_folds: int = 0
    """Folds whose logged digest was derived again from the transcript and whose store
    object was checked: those the replayed records made."""
    checkpoint_problem: str | None = None
    """Why a checkpoint that exists was not used (damaged or doubtful: rebuilt instead)."""


__all__ = ["OpenReport", "OverflowRecovery", "Request"]
