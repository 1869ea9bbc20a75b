"""What the loop asks of the context it sends: the folding engine, or Pi's native compaction.

The loop never builds a request itself. Before every model call it asks its
:class:`ContextWindow` to prepare one (the engine commits first when its threshold is due;
native compaction summarises first when Pi's trigger fires), sends exactly the messages it
gets, hands the provider's usage back, and on a too-long refusal asks it to recover. The
folding engine is the product (:class:`EngineWindow`); ``--no-fold`` swaps in
:class:`pifold_agent.native_window.NativeWindow` so the two can be compared on the
same work.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Protocol

from pifold_agent.cache_report.verdict import EngineFacts
from pifold_agent.loop.events import AgentEvent, CommitDone
from pifold_agent.loop.fold_tool import FoldTool
from pifold_agent.loop.messages import in_context
from pifold_agent.loop.prefix_floor import overflow_refusal
from pifold_agent.loop.system_prompt import tool_definitions
from pifold_agent.providers.base import ToolSpec
from pifold_agent.tools.protocol import Tool
from pifold_core.canonical import JsonValue
from pifold_core.commit import CommitOutcome
from pifold_core.engine import Engine
from pifold_core.entries import Entry, Usage
from pifold_core.host_prefix import prefix_tokens


@dataclass(frozen=True, slots=True)
class Prepared:
    """One request's messages, ready to send."""

    messages: Sequence[dict[str, JsonValue]]
    """Exactly what the provider is sent."""
    number: int | None
    """The engine's request number (for the usage report); ``None`` without an engine."""
    settled_messages: int | None
    """Leading messages the next rewrite will not touch (a cache breakpoint goes there)."""
    facts: EngineFacts | None = None
    """What the engine's wire audit knew of the request (its cache verdict is judged by it);
    ``None`` without an engine."""


@dataclass(frozen=True, slots=True)
class Recovery:
    """What overflow recovery did."""

    fits: bool
    """Whether the retried request is expected to fit."""
    expected_tokens: int
    """The occupancy expected for it."""
    budget: int
    """The budget it was measured against."""
    refusal: str | None = None
    """Why no retry can fit, when nothing foldable would bring the request under (nothing
    was committed): the run ends at once with it instead of sending the same request again."""


class ContextWindow(Protocol):
    """The context behind the loop's requests."""

    def entries(self) -> Sequence[Entry]:
        """Every in-context entry appended so far, in order."""
        ...

    def append(self, entry: Entry) -> None:
        """Take one new message (already in the session file)."""
        ...

    def tools(self) -> list[Tool]:
        """Tools this context brings (the fold tool for the engine)."""
        ...

    def used_ids(self) -> Container[str]:
        """Entry ids already taken."""
        ...

    def used_call_ids(self) -> Container[str]:
        """Tool call ids already taken."""
        ...

    def catch_up(self, recorded: Sequence[Entry]) -> list[Entry]:
        """Append the in-context entries of the session it lacks; returns them."""
        ...

    def result_limit_bytes(self) -> int | None:
        """The most bytes of text a tool result can have and still reach the model whole;
        ``None`` when this context never cuts a result (the tools' own limit holds)."""
        ...

    def request_budget(self) -> int:
        """Tokens one request may carry, the system prompt and tools included."""
        ...

    def estimate_text(self, text: str) -> int:
        """Tokens ``text`` costs in a request, as this context estimates them."""
        ...

    async def prepare(
        self, emit: Callable[[AgentEvent], None], head: str | None = None
    ) -> Prepared:
        """The next request (committing or compacting first when due). ``head`` is the
        digest of the system prompt and tools the request carries
        (:func:`pifold_agent.loop.system_prompt.prompt_head_digest`)."""
        ...

    def report_usage(self, prepared: Prepared, usage: Usage) -> None:
        """The provider's count for the request ``prepared`` was."""
        ...

    async def recover(self, emit: Callable[[AgentEvent], None]) -> Recovery:
        """The provider refused the request as too long: make room now."""
        ...


class EngineWindow:
    """The folding engine as the loop's context."""

    def __init__(
        self,
        engine: Engine,
        clock: Callable[[], int] | None = None,
        cache_lifetime_s: int | None = None,
    ) -> None:
        self.engine = engine
        """The engine every message goes to."""
        self.clock = clock
        """Milliseconds now, passed with each request so the engine can see a cold cache."""
        self.cache_lifetime_s = cache_lifetime_s
        """The model's cache lifetime (its descriptor's), when known."""
        self.prefix_tokens: int | None = None
        """The host's fixed prefix (system prompt and tools), counted by the engine's own
        counter (:meth:`set_prefix`); stated to the engine before each request."""
        self._prefix_of: tuple[str, Sequence[ToolSpec]] | None = None
        """The system prompt and tools :attr:`prefix_tokens` counts."""

    def set_prefix(self, system: str, specs: Sequence[ToolSpec]) -> None:
        """Count the system prompt and the tools every request carries (again only when they
        changed); the engine is told at :meth:`state_prefix` (nothing is written here)."""
        if self._prefix_of is not None and self._prefix_of == (system, specs):
            return
        counter = self.engine.view.projection.counter
        self.prefix_tokens = prefix_tokens(counter, system, tool_definitions(specs))
        self._prefix_of = (system, specs)

    def prefix_notices(self, system: str, specs: Sequence[ToolSpec]) -> list[str]:
        """Count the prefix, tell the engine (part of every figure from the start; logged
        when it changed) and name the floor it sets, if any: the run's notices at start."""
        self.set_prefix(system, specs)
        self.state_prefix()
        floor = self.engine.status().prefix_floor
        return [] if floor is None else [floor.describe()]

    def state_prefix(self) -> None:
        """Tell the engine the prefix's size (logged when it changed): part of its estimate
        and of every figure from now on."""
        if self.prefix_tokens is not None:
            self.engine.set_host_prefix(self.prefix_tokens)

    def entries(self) -> Sequence[Entry]:
        return self.engine.view.transcript.entries

    def append(self, entry: Entry) -> None:
        self.engine.append(entry)

    def tools(self) -> list[Tool]:
        return [FoldTool(self.engine)]

    def used_ids(self) -> Container[str]:
        return self.engine.view.transcript.index_of

    def result_limit_bytes(self) -> int | None:
        # Past this the engine keeps the result as evidence and shows a head and a tail: a
        # tool that stays under it tells the model exactly what it saw (offset=N is true).
        return self.engine.options.evidence_threshold_bytes

    def used_call_ids(self) -> Container[str]:
        return self.engine.view.transcript.call_site

    def catch_up(self, recorded: Sequence[Entry]) -> list[Entry]:
        known = self.engine.view.transcript.index_of
        context = [entry for entry in recorded if in_context(entry)]
        # Only what follows the last message the log holds: a kill between the two writes
        # leaves such a tail. One missing before it was added to the file by hand, and the
        # log wins over hand edits (pifold_agent.sessions.agreement): it is not sent.
        start = next(
            (index + 1 for index in range(len(context) - 1, -1, -1) if context[index].id in known),
            0,
        )
        missing = [entry for entry in context[start:] if entry.id not in known]
        for entry in missing:
            self.engine.append(entry)
        return missing

    def request_budget(self) -> int:
        return self.engine.options.budget

    def estimate_text(self, text: str) -> int:
        # The engine's own count, scaled as it scales a projection to the provider's figures.
        counted = self.engine.view.projection.counter.count_text(text)
        return round(self.engine.view.calibration * counted)

    async def prepare(
        self, emit: Callable[[AgentEvent], None], head: str | None = None
    ) -> Prepared:
        now = self.clock() if self.clock is not None else None
        self.state_prefix()
        view = self.engine.view
        # Asked before the request is logged: it becomes the previous one once it is.
        expired = view.finds_cache_cold(now, self.cache_lifetime_s, None)
        head_changed = view.finds_cache_cold(None, None, head)
        first = view.audit_counts.requests == 0
        request = self.engine.prepare_request(now, self.cache_lifetime_s, head)
        if request.commit is not None:
            emit(commit_event(request.commit, self.engine.view.prefix_tokens))
        if (
            request.expected_tokens > self.engine.options.budget
            and self.engine.view.folding_stopped is None  # a stopped engine cannot commit: send
        ):
            # The engine holds back a commit that buys no runway, even past the budget:
            # overflow recovery is the net (issue 12). A budget below the model's window is
            # refused by nobody else, so recover before sending, as a refusal would.
            recovery = self.engine.recover_from_overflow()
            emit(commit_event(recovery.commit, self.engine.view.prefix_tokens))
            request = self.engine.prepare_request(now, self.cache_lifetime_s, head)
        settled = self.engine.settled_boundary()
        record = request.record
        facts = EngineFacts(
            record.number,
            record.classification,
            record.first_divergence,
            record.causes,
            expired,
            head_changed,
            first,
        )
        return Prepared(request.messages, record.number, settled, facts)

    def report_usage(self, prepared: Prepared, usage: Usage) -> None:
        if prepared.number is not None:
            self.engine.report_usage(prepared.number, usage)

    async def recover(self, emit: Callable[[AgentEvent], None]) -> Recovery:
        engine = self.engine
        budget = engine.options.budget
        refusal = overflow_refusal(engine)
        if refusal is not None:
            # Nothing foldable would bring the request under: a commit would change nothing
            # (the real model's "5 -> 5 tokens" twice) and the same request would be refused.
            return Recovery(False, engine.expected_tokens(), budget, refusal)
        recovery = engine.recover_from_overflow()
        emit(commit_event(recovery.commit, engine.view.prefix_tokens))
        return Recovery(recovery.fits, recovery.expected_tokens, budget)


def shows_raw(window: ContextWindow, entry_id: str) -> bool:
    """Whether the window sends entry ``entry_id`` raw: not folded, not clipped."""
    if not isinstance(window, EngineWindow):
        return True  # native compaction keeps no record of what it summarised away
    engine = window.engine
    index = engine.view.transcript.index_of.get(entry_id)
    if index is None:
        return False
    projection = engine.view.projection
    item = projection.items[projection.item_index_at(index)]
    return item.fold is None and item.start == index and index not in projection.views


def commit_event(commit: CommitOutcome, prefix: int = 0) -> CommitDone:
    """The event for one engine commit, its figures the whole request's: the projection's
    estimate and the host's fixed ``prefix`` (which no commit changes)."""
    return CommitDone(
        commit.number,
        commit.cause,
        commit.tokens_before + prefix,
        commit.tokens_after + prefix,
        len(commit.built),
        commit.consolidated_at_once,
        commit.folds_shown,
        prefix,
    )


__all__ = ["ContextWindow", "EngineWindow", "Prepared", "Recovery", "commit_event", "shows_raw"]
