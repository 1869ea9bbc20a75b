"""``--no-fold``: Pi's native compaction as the loop's context, for comparing it with folding.

The session file is the context: each request sends the latest compaction summary and the
messages kept after it (the sessions package's ``context()``), and nothing else keeps a copy.
Before every request (so inside a long agentic turn too, where Pi itself only checks between
prompts) the context is estimated Pi's way, from the last usage measured since the latest
compaction plus characters / 4 of what followed; over the window minus the reserve, the
history is summarised by the same provider (:mod:`pifold_agent.compaction`, the one
implementation the benchmark's native arm also plans with) and Pi's ``compaction`` entry is
appended, fsynced. A too-long refusal compacts at once and retries. The summaries are lossy
by design: this is the behaviour folding is measured against.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence

from pifold_agent.compaction.planning import FileOperations, plan_compaction
from pifold_agent.compaction.settings import (
    CompactionSettings,
    estimate_context_tokens,
    estimate_tokens,
    measured_context,
)
from pifold_agent.compaction.summariser import CompactionError, summarise
from pifold_agent.loop.events import AgentEvent, CompactionDone, ErrorEvent
from pifold_agent.loop.messages import in_context
from pifold_agent.loop.window import Prepared, Recovery
from pifold_agent.providers.base import Provider
from pifold_agent.sessions import SessionFile
from pifold_agent.tools.protocol import Tool
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry, Usage


class NativeWindow:
    """Pi's native compaction over one session file."""

    def __init__(
        self,
        session: SessionFile,
        provider: Provider,
        context_window: int,
        settings: CompactionSettings | None = None,
    ) -> None:
        self.session = session
        self.provider = provider
        self.context_window = context_window
        """Tokens the model accepts; compaction keeps the context under it minus the reserve."""
        self.settings = settings if settings is not None else CompactionSettings()
        self.compactions = 0
        """Compactions this process ran."""

    def entries(self) -> Sequence[Entry]:
        return [entry for entry in self.session.messages() if in_context(entry)]

    def append(self, entry: Entry) -> None:
        """Nothing to do: the session file, written first, is this context's only copy."""

    def tools(self) -> list[Tool]:
        return []

    def used_ids(self) -> Container[str]:
        return self.session.taken_ids

    def used_call_ids(self) -> Container[str]:
        return {call.id for entry in self.session.messages() for call in entry.tool_calls}

    def catch_up(self, recorded: Sequence[Entry]) -> list[Entry]:
        """Nothing can be missing: there is no second store to fall behind."""
        return []

    def result_limit_bytes(self) -> int | None:
        return None  # Pi's compaction cuts no single result

    def request_budget(self) -> int:
        """The window less Pi's reserve: past it, every request would compact first."""
        return self.settings.threshold(self.context_window)

    def estimate_text(self, text: str) -> int:
        """Pi's estimate: characters / 4, rounded up."""
        return -(-len(text) // 4)

    def context_tokens(self) -> int:
        """The context's size, Pi's way; usage measured before the latest compaction is stale
        (it counted the summarised history), so only later usage is trusted."""
        context = self.session.context()
        latest = self.session.latest_compaction()
        if latest is None:
            return estimate_context_tokens(context)
        fresh = [entry for entry in context[1:] if entry.timestamp_ms > latest.timestamp_ms]
        measured = any(measured_context(entry) is not None for entry in fresh)
        if measured:
            return estimate_context_tokens(context)
        return sum(estimate_tokens(entry) for entry in context)

    async def prepare(
        self, emit: Callable[[AgentEvent], None], head: str | None = None
    ) -> Prepared:
        # The head is not used: Pi compacts on the window's size alone.
        tokens = self.context_tokens()
        if self.settings.should_compact(tokens, self.context_window):
            await self._compact("threshold", tokens, emit)
        messages = [entry.wire for entry in self.session.context()]
        return Prepared(messages, None, None)

    def report_usage(self, prepared: Prepared, usage: Usage) -> None:
        """Nothing to bind: the usage is kept on the assistant entry, where Pi reads it."""

    async def recover(self, emit: Callable[[AgentEvent], None]) -> Recovery:
        tokens = self.context_tokens()
        await self._compact("overflow", tokens, emit)
        after = self.context_tokens()
        limit = self.settings.threshold(self.context_window)
        return Recovery(after <= limit and after < tokens, after, limit)

    async def compact_now(self, emit: Callable[[AgentEvent], None]) -> bool:
        """Compact at once, whatever the threshold says (the app's ``/compact``); whether a
        compaction entry was written (there may be nothing old enough to summarise)."""
        before = self.compactions
        await self._compact("manual", self.context_tokens(), emit)
        return self.compactions > before

    async def _compact(self, reason: str, tokens: int, emit: Callable[[AgentEvent], None]) -> None:
        messages = list(self.entries())
        latest = self.session.latest_compaction()
        ids = [entry.id for entry in messages]
        start = (
            ids.index(latest.first_kept_entry_id)
            if latest and latest.first_kept_entry_id in ids
            else 0
        )
        plan = plan_compaction(
            messages,
            [estimate_tokens(entry) for entry in messages],
            start,
            self.settings.keep_recent_tokens,
            latest.summary if latest else None,
            _files(latest.details) if latest else None,
        )
        if plan is None:
            return
        try:
            summary = await summarise(self.provider, plan, self.settings)
        except CompactionError as error:
            emit(ErrorEvent(f"compaction failed, the context stays as it was: {error}"))
            return
        files = plan.file_operations
        details: dict[str, JsonValue] = {
            "readFiles": sorted(files.read),
            "modifiedFiles": sorted(files.modified),
        }
        self.session.append_compaction(summary.summary, plan.first_kept_entry_id, tokens, details)
        self.compactions += 1
        emit(CompactionDone(reason, tokens, self.context_tokens(), plan.first_kept_entry_id))


def _files(details: dict[str, JsonValue] | object) -> FileOperations:
    """The file lists a previous compaction recorded (Pi's ``readFiles``/``modifiedFiles``)."""
    if not isinstance(details, dict):
        return FileOperations()

    def names(key: str) -> frozenset[str]:
        value = details.get(key)
        return (
            frozenset(item for item in value if isinstance(item, str))
            if isinstance(value, list)
            else frozenset()
        )

    return FileOperations(names("readFiles"), names("modifiedFiles"))


__all__ = ["NativeWindow"]
