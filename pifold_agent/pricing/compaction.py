"""The ``native`` arm: Pi's own compaction, re-enacted request by request for its bill.

The benchmark runs it over a fixed trajectory (:mod:`pifold_bench.run`); the app's demo runs
it beside the session it plays, so the footer can say what compaction would have cost at the
same budget (:mod:`pifold_agent.pricing.session_bill`). It lives here, below both, because
the app may not import the bench.

The algorithm is the agent's own (:mod:`pifold_agent.compaction`): the cut point, the split
turn and the serialised history come from its planner, so the benchmark measures what
``pifold --no-fold`` and ``/compact`` do. This module keeps only what is particular to an
offline re-enactment: the assumed summary lengths, the assumed instruction sizes and the
billing of the summarisation calls.

What Pi does (its compaction settings and code, as documented for the host):

* **When**: the context passes the window minus ``reserveTokens``. Here the serving budget
  *is* the window net of the output reservation, so compaction fires when a request would
  carry more than the budget. Pi checks at the end of a run and otherwise recovers from an
  overflow; checking before every request, as this arm does, is the variant kindest to
  native (it overflows only when no cut can bring the window under the budget, below).
* **What is kept**: walking back from the newest entry, the first entry where the running
  total reaches ``keepRecentTokens`` (20,000), moved forward to the nearest entry that may
  start a window (never a tool result, which must stay with its call). When no such entry
  lies at or after it (the newest results alone pass 20,000 tokens, and the arm asks before
  the next assistant entry exists), the cut steps back instead to the assistant entry that
  made those calls, keeping call and results together and more than 20,000 tokens.
  Everything from the previous cut up to the new one is summarised; the previous summary is
  carried into the new one.
* **Overflow**: when even that cut leaves the window over the budget (one turn's results
  larger than the budget), or there is nothing before the turn to cut, the request is sent
  over the budget: it is billed as it stands and counted in the figures' ``over_budget``
  (an overflow compaction could not prevent), never passed off as within the budget.
* **The summarisation call**: a standalone request (no session cache) whose prompt is the
  summarised messages serialised as labelled text (tool results cut to 2,000 characters),
  the previous summary and the instructions; its output is the summary. It is billed whole.
* **Split turn**: when the cut falls inside a turn (the first kept entry is not the user
  message that began it, and that message lies after the previous cut), Pi makes two such
  calls: the history up to the turn's start (with the previous summary), and the turn's
  prefix, from its start up to the cut, under a shorter skeleton and half the reserve as its
  output budget. Both are billed here, each with its whole prompt and its output, and the
  summary is the two joined under a heading, so it is longer than a plain one. With nothing
  between the previous cut and the turn's start, Pi makes no history call and writes a
  fixed line in its place (the previous summary is then not carried forward). A turn that
  began before the previous cut is summarised in one call, as Pi does.
* **After**: the window is the summary (a user-role message) followed by the kept entries.

The history summary's length is the mean of the summaries the trace itself recorded, when it
holds any, else :data:`DEFAULT_SUMMARY_TOKENS`; a turn-prefix summary is taken to fill the
same share of its smaller output budget (:func:`turn_prefix_summary_tokens`). What a summary
says cannot be known offline, so for recall a summarised value counts as lost.
"""

from __future__ import annotations

from pifold_agent.compaction.planning import (
    find_cut_point,
    find_turn_start,
    plan_compaction,
)
from pifold_agent.compaction.prompts import serialise
from pifold_agent.compaction.settings import KEEP_RECENT_TOKENS, RESERVE_TOKENS, CompactionSettings
from pifold_agent.pricing.arm_request import ArmRequest, SideCall
from pifold_core.canonical import JsonValue, wire_digest_of
from pifold_core.entries import Entry
from pifold_core.tokens import TokenCounter

DEFAULT_SUMMARY_TOKENS = 2_000
"""Summary length when the trace records no compaction summary. An assumption: Pi caps the
summary at 13,107 tokens (0.8 x the 16,384 reserve), and the one readable summary among the
shared traces (Gemini CLI's state snapshot) is about 1,300; 2,000 sits between, nearer the
observed end. ``pifold bench --summary-tokens`` overrides it."""

INSTRUCTION_TOKENS = 600
"""Estimated tokens of the summariser's system prompt and its instruction skeleton (goal,
constraints, progress, decisions, next steps, critical context), which the trace cannot show."""

TURN_PREFIX_INSTRUCTION_TOKENS = 300
"""Estimated tokens of the same system prompt with the turn-prefix skeleton (original
request, early progress, context for the kept suffix): three sections against six, so half
of :data:`INSTRUCTION_TOKENS`."""

HISTORY_SUMMARY_BUDGET = CompactionSettings().history_summary_budget
"""Pi's output budget for a history summary: 13,107 tokens."""

TURN_PREFIX_SUMMARY_BUDGET = CompactionSettings().turn_prefix_summary_budget
"""Pi's output budget for a turn-prefix summary: 8,192 tokens."""

SPLIT_TURN_JOIN_TOKENS = 12
"""Estimated tokens of the horizontal rule and heading that join a split turn's summaries."""

NO_PRIOR_HISTORY_TOKENS = 5
"""Estimated tokens of the fixed line Pi writes instead of a history summary when nothing
precedes the split turn."""


def turn_prefix_summary_tokens(summary_tokens: int) -> int:
    """The assumed length of a turn-prefix summary, given a history summary's length.

    Nothing recorded shows one, so it is taken to fill the same share of its output budget
    as the history summary fills of its own (5/8 of its length, as 8,192 is of 13,107),
    never more than that budget: 1,250 tokens beside the default 2,000.
    """
    share = TURN_PREFIX_SUMMARY_BUDGET / HISTORY_SUMMARY_BUDGET
    return max(1, min(TURN_PREFIX_SUMMARY_BUDGET, round(summary_tokens * share)))


class NativeCompactionArm:
    """Pi's compaction: summarise all but the newest ~20,000 tokens when the budget is passed."""

    name = "native"

    def __init__(
        self,
        counter: TokenCounter,
        budget: int,
        summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
        keep_recent_tokens: int = KEEP_RECENT_TOKENS,
    ) -> None:
        self.counter = counter
        self.budget = budget
        self.summary_tokens = summary_tokens
        self.keep_recent_tokens = keep_recent_tokens
        self.entries: list[Entry] = []
        self._tokens: list[int] = []
        self.kept_from = 0
        """Index of the first entry still in the window."""
        self.summary: dict[str, JsonValue] | None = None
        """The current summary message, once a compaction has run."""
        self.current_summary_tokens = 0
        """Estimated tokens of :attr:`summary` (longer than ``summary_tokens`` after a split
        turn, where two summaries are joined)."""
        self._summary_digest = ""
        self._window_tokens = 0
        self.compactions = 0
        self.split_turns = 0
        """Compactions whose cut fell inside a turn (two summarisation calls each)."""

    def append(self, entry: Entry) -> None:
        self.entries.append(entry)
        tokens = self.counter.count_message(entry.wire, entry.wire_digest)
        self._tokens.append(tokens)
        self._window_tokens += tokens

    def prepare_request(
        self,
        now_ms: int | None = None,
        cache_lifetime_s: int | None = None,
        host_head: str | None = None,
    ) -> ArmRequest:
        # The clock is not used: Pi compacts on the window's size alone.
        side_calls: tuple[SideCall, ...] = ()
        causes: tuple[str, ...] = ()
        if self._window_tokens > self.budget:
            side_calls = self._compact()
            if side_calls:
                causes = (f"compaction {self.compactions}",)
        digests: list[str] = []
        tokens: list[int] = []
        if self.summary is not None:
            digests.append(self._summary_digest)
            tokens.append(self.current_summary_tokens)
        for index in range(self.kept_from, len(self.entries)):
            digests.append(self.entries[index].wire_digest)
            tokens.append(self._tokens[index])
        return ArmRequest(tuple(digests), tuple(tokens), causes, side_calls)

    def cut_point(self) -> int | None:
        """Where the kept tail starts after a compaction now, or None if nothing can be cut
        (the agent's planner, :func:`~pifold_agent.compaction.planning.find_cut_point`)."""
        kinds = [entry.kind for entry in self.entries]
        return find_cut_point(kinds, self._tokens, self.kept_from, self.keep_recent_tokens)

    def turn_start(self, cut: int) -> int | None:
        """Where the turn that the cut falls inside began, or None when the cut does not split
        a turn (it is itself a turn's start, or the turn began before the previous cut)."""
        kinds = [entry.kind for entry in self.entries]
        return find_turn_start(kinds, cut, self.kept_from)

    def _compact(self) -> tuple[SideCall, ...]:
        """Summarise up to the cut point; the summarisation calls made (none: nothing cut)."""
        # The summary's text cannot be known offline; the plan only needs to know whether
        # there is one to carry, and its assumed length is billed below.
        previous = "" if self.summary is not None else None
        plan = plan_compaction(
            self.entries, self._tokens, self.kept_from, self.keep_recent_tokens, previous
        )
        if plan is None:
            return ()
        self.compactions += 1
        number = self.compactions
        cut = plan.first_kept
        turn_start = plan.turn_start
        calls: list[SideCall] = []
        if plan.history:
            prompt = INSTRUCTION_TOKENS + self.counter.count_text(serialise(plan.history))
            if plan.previous_summary is not None:
                prompt += self.current_summary_tokens
            label = f"compaction {number}" if turn_start is None else f"compaction {number} history"
            calls.append(SideCall(label, prompt, self.summary_tokens))
            summary_tokens = self.summary_tokens
        else:
            # Nothing between the previous cut and the turn's start: Pi makes no history call,
            # so the previous summary is not carried into the new one.
            summary_tokens = NO_PRIOR_HISTORY_TOKENS
        if turn_start is not None:
            self.split_turns += 1
            prefix_output = turn_prefix_summary_tokens(self.summary_tokens)
            prompt = TURN_PREFIX_INSTRUCTION_TOKENS + self.counter.count_text(
                serialise(plan.turn_prefix)
            )
            calls.append(SideCall(f"compaction {number} turn prefix", prompt, prefix_output))
            summary_tokens += SPLIT_TURN_JOIN_TOKENS + prefix_output
        split = " (split turn)" if turn_start is not None else ""
        self.summary = {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": f"[compaction summary {number}{split}: the history before this "
                    f"point was compacted into a summary of about {summary_tokens:,} tokens]",
                }
            ],
        }
        self._summary_digest = wire_digest_of(self.summary)
        self.current_summary_tokens = summary_tokens
        self.kept_from = cut
        self._window_tokens = summary_tokens + sum(self._tokens[cut:])
        return tuple(calls)

    @property
    def events(self) -> int:
        return self.compactions

    def final_messages(self) -> list[dict[str, JsonValue]]:
        kept = [entry.wire for entry in self.entries[self.kept_from :]]
        return [self.summary, *kept] if self.summary is not None else kept

    def peek(self, identifier: str) -> bytes | None:
        return None  # the summarised originals are out of the model's reach

    def close(self) -> None:
        return None


__all__ = [
    "DEFAULT_SUMMARY_TOKENS",
    "HISTORY_SUMMARY_BUDGET",
    "INSTRUCTION_TOKENS",
    "KEEP_RECENT_TOKENS",
    "NO_PRIOR_HISTORY_TOKENS",
    "RESERVE_TOKENS",
    "SPLIT_TURN_JOIN_TOKENS",
    "TURN_PREFIX_INSTRUCTION_TOKENS",
    "TURN_PREFIX_SUMMARY_BUDGET",
    "NativeCompactionArm",
    "turn_prefix_summary_tokens",
]
