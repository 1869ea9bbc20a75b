"""What a host reads of a session without changing it: :class:`EngineView` (``engine.view``).

The fold screens, the agent's window, the app, the replay and the bench read the transcript,
the forest and the projection, the pending marks and pins, and a few counters. They read
them here, never from the engine's state directly: the engine's state is its own, changed
only by its verbs, and this class has no method that changes anything. The objects it hands
out (the transcript, the forest, the projection) are the live ones, for reading; a host that
wants a change calls the engine's verb for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from pathlib import Path

from pifold_core.audit import AuditCounts
from pifold_core.commit_policy import CommitPolicy, cold_commit_choice, finds_cache_cold
from pifold_core.engine_results import OpenReport
from pifold_core.folds import Forest
from pifold_core.host_notes import HostNote
from pifold_core.journal import TornTail
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions
from pifold_core.projection import Projection
from pifold_core.runway import Floor
from pifold_core.session_state import SessionState
from pifold_core.status import CommitView
from pifold_core.transcript import Transcript


class EngineView:
    """A read-only window on one engine's session (see the module docstring)."""

    def __init__(self, state: SessionState, policy: CommitPolicy) -> None:
        self._state = state
        self._policy = policy

    # -- what the model is sent and where it comes from ------------------------------------

    @property
    def transcript(self) -> Transcript:
        """Every entry of the session, in order (read it; append through the engine)."""
        return self._state.transcript

    @property
    def forest(self) -> Forest:
        """The folds over the transcript, and which are expanded."""
        return self._state.forest

    @property
    def projection(self) -> Projection:
        """What the model is sent: items, messages, digests and token estimates."""
        return self._state.projection

    @property
    def marks(self) -> Mapping[str, Mark]:
        """Pending marks by id."""
        return self._state.marks

    @property
    def pinned(self) -> Set[int]:
        """Indices of the entries held raw through every commit."""
        return self._state.pinned

    @property
    def staged_refolds(self) -> Set[str]:
        """Expanded folds that collapse again at the next commit."""
        return self._state.staged_refolds

    @property
    def evidence_ids(self) -> Set[str]:
        """Evidence artifacts this session's entries point at."""
        return self._state.evidence_ids

    # -- the session --------------------------------------------------------------------------

    @property
    def state_dir(self) -> Path:
        """The session's state folder."""
        return self._state.state_dir

    @property
    def options(self) -> EngineOptions:
        """The session's options as they stand."""
        return self._state.options

    @property
    def read_only(self) -> bool:
        """Opened read-only: every changing verb refuses."""
        return self._state.read_only

    @property
    def log_length(self) -> int:
        """Records in the session log so far (the next record's sequence number)."""
        return self._state.journal.next_sequence

    @property
    def torn_tail(self) -> TornTail | None:
        """The torn last log line found (and cut off) on open, if any."""
        return self._state.journal.torn

    @property
    def checkpoint_records(self) -> int:
        """Records the latest checkpoint read or written covers (0: none yet)."""
        return self._state.checkpoint_records

    @property
    def checkpoint_problem(self) -> str | None:
        """Why the checkpoint found on open was not used (damaged or doubtful: rebuilt)."""
        return self._state.opened.checkpoint_problem

    @property
    def reopen(self) -> OpenReport:
        """What opening the session replayed and checked (nothing after a clean close)."""
        return self._state.opened

    @property
    def host_notes(self) -> Sequence[HostNote]:
        """The host's notes, oldest first, live or restored from the log."""
        return self._state.host_notes

    # -- counters -----------------------------------------------------------------------------

    @property
    def commit_count(self) -> int:
        """Commits so far in the session."""
        return self._state.commit_count

    @property
    def commit_history(self) -> Sequence[CommitView]:
        """What every commit of the session did, oldest first."""
        return self._state.commit_history

    @property
    def clipped_total(self) -> int:
        """Tool results clipped by every commit of the session."""
        return self._state.clipped_total

    @property
    def epoch(self) -> int:
        """Rewrites declared so far (commits and verbs)."""
        return self._state.epoch

    @property
    def audit_counts(self) -> AuditCounts:
        """The wire audit's running totals: requests, appends, attributed and unattributed
        rewrites."""
        return self._state.audit.counts

    @property
    def calibration(self) -> float:
        """Provider tokens per estimated token, as measured so far."""
        return self._state.meter.calibration

    @property
    def floor(self) -> Floor | None:
        """What blocked the latest threshold commit for want of runway (``None``: nothing)."""
        return self._state.floor

    @property
    def prefix_tokens(self) -> int:
        """The host's fixed prefix as it stated it (``Engine.set_host_prefix``), estimated;
        part of every estimate (0: not stated)."""
        return self._state.meter.prefix_tokens

    @property
    def folding_stopped(self) -> str | None:
        """Why folding stopped (a commit could not be saved), or ``None``."""
        return self._state.folding_stopped

    # -- the commit policy's questions ----------------------------------------------------------

    def finds_cache_cold(
        self, now_ms: int | None, cache_lifetime_s: int | None, host_head: str | None
    ) -> bool:
        """Whether a request sent now would find the cache cold (the policy's rule)."""
        return finds_cache_cold(self._state, now_ms, cache_lifetime_s, host_head)

    def cold_commit_choice(self) -> list[str]:
        """The marks a cold-cache commit would land now, stalest first (the policy's rule)."""
        return cold_commit_choice(self._state, self._policy.cold_commit_share)


__all__ = ["EngineView"]
