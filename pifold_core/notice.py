"""The opt-in pre-commit notice (DESIGN §8).

Once per approach to the trigger, when occupancy passes ``maxTarget − noticeLeadShare``, the
engine appends one note so the agent can steer the coming commit: brief a mark, pin what it
still needs, or unmark what must stay. The note is an append like any other entry and is
never withdrawn, so it costs the cache nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pifold_core.entries import Entry, text_entry
from pifold_core.placeholders import TOOL_NAME
from pifold_core.reporting import build_status
from pifold_core.transcript import TranscriptError

if TYPE_CHECKING:
    from pifold_core.session_state import SessionState

NOTICE_TAG = "pre-commit-notice"
"""Value of ``extra["pifold"]`` on a notice entry: how a reopened session recognises one."""


def notice_text(state: SessionState, expected: int) -> str:
    """What the notice says: where the commit fires, what it would do, and the verbs."""
    options = state.options
    trigger = options.max_tokens
    status = build_status(state)
    marked = status.marked_tokens
    lines = [
        f"[pi-fold] A fold commit fires at {trigger:,} tokens "
        f"({options.thresholds.max_target:.0%} of {options.budget:,}); the window holds about "
        f"{expected:,}, {max(0, trigger - expected):,} away.",
        f"Staged: {len(status.marks)} marks over {marked:,} tokens, "
        f"{len(status.staged_refolds)} refolds, {len(status.staged_pins)} pins of folded "
        f"entries. The commit folds stalest first until the window is at "
        f"{options.thresholds.min_target:.0%} ({options.min_tokens:,} tokens).",
        f"Pinned: {len(status.pins)} entries holding {status.pinned_tokens:,} tokens "
        f"(cap {status.pin_cap_tokens:,}).",
        f"Steer it with {TOOL_NAME}: status, brief (write a mark's brief), pin / unpin, "
        "reboundary, unmark. Every fold stays one peek away.",
    ]
    return "\n".join(lines)


def notice_entry(state: SessionState, expected: int) -> Entry:
    """The note to append, stamped with the newest entry's time (replays stay identical)."""
    transcript = state.transcript
    timestamp = transcript.entries[-1].timestamp_ms if len(transcript) else 0
    return text_entry(
        f"pifold-notice-{state.commit_count + 1}-{len(transcript)}",
        "note",
        notice_text(state, expected),
        timestamp,
        extra={"pifold": NOTICE_TAG},
    )


def due_notice(state: SessionState) -> Entry | None:
    """The pre-commit notice to append now, if it is due: occupancy within the lead of the
    threshold, once per epoch, never inside an unfinished tool batch (before each request).
    The engine appends it, then marks the state noticed."""
    if not state.options.pre_commit_notice or state.noticed:
        return None
    expected = state.expected_tokens()
    lead = state.options.thresholds.max_target - state.options.notice_lead_share
    if not lead * state.options.budget <= expected < state.options.max_tokens:
        return None
    units = state.transcript.units
    if units and units[-1].pending_calls and not units[-1].sealed:
        return None  # mid-batch (results still to come): speak at the next request instead
    entry = notice_entry(state, expected)
    try:
        state.transcript.check_append(entry)
    except TranscriptError:
        return None  # its id is taken: speak at the next request instead
    return entry
