"""The agent loop: prompts in, model requests through the engine, tool batches, answers out.

One run (pi-host §1.3): the prompt is recorded; then, turn after turn, the loop asks the
engine for the projection (which commits first when the threshold is due, so a long
agentic turn is folded between its tool batches), sends exactly ``Request.messages``,
reports the provider's usage for that request number, records the assistant message and
runs its tool batch. Steering messages land after the batch; when the model stops and no
steering is waiting, a follow-up continues the run; otherwise the run ends.

Every message is written to the session first and to the engine second. Failed requests are
classified by the provider: too long goes to the engine's overflow recovery and the same
request is sent again once it fits; transient failures are retried with bounded backoff (each
wait is an event); anything else ends the run with the provider's message
(:mod:`pifold_agent.loop.request_retry`). How the loop behaves is its
:class:`~pifold_agent.loop.config.AgentConfig`. Abort is the
caller cancelling the task that awaits :meth:`Agent.run`: the partial assistant message is
kept in the session only, interrupted tools get an "aborted" result, and the cancellation
propagates once the session is consistent.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pifold_agent.loop.approval import ApprovalGate
from pifold_agent.loop.batch import run_batch
from pifold_agent.loop.config import AgentConfig
from pifold_agent.loop.events import (
    AgentEvent,
    ErrorEvent,
    MessageEnd,
    MessageStart,
    RunEnd,
    RunStart,
    ToolExecutionEnd,
    TurnEnd,
    TurnStart,
)
from pifold_agent.loop.followers import FinishedBatch
from pifold_agent.loop.message_size import check_message_size, head_tokens
from pifold_agent.loop.messages import EXCLUDED_STOP_REASONS, EntryFactory, now_ms
from pifold_agent.loop.queues import Queues
from pifold_agent.loop.recorder import SessionRecorder, answer_orphans
from pifold_agent.loop.request_retry import request_reply
from pifold_agent.loop.streaming import StreamCollector
from pifold_agent.loop.system_prompt import (
    ordered_tools,
    prompt_head_digest,
    system_prompt,
    tool_specs,
)
from pifold_agent.loop.window import ContextWindow, EngineWindow
from pifold_agent.providers.base import Provider, StreamDone
from pifold_agent.tools.protocol import Tool, ToolCrash, ToolOutcome
from pifold_agent.tools.registry import guarded_names
from pifold_core.engine import Engine
from pifold_core.entries import Entry, ToolCallBlock


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended."""

    outcome: str
    """``stop``, ``error`` or ``aborted`` (aborted runs re-raise the cancellation)."""
    final_text: str
    """The text of the last complete assistant message."""
    error: str | None = None
    """What went wrong, for ``error``."""


class Agent:
    """A coding agent over one engine, one provider and one session."""

    def __init__(
        self,
        context: Engine | ContextWindow,
        provider: Provider,
        tools: Sequence[Tool],
        recorder: SessionRecorder,
        config: AgentConfig,
        queues: Queues | None = None,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.window: ContextWindow = (
            EngineWindow(context, clock, config.cache_lifetime_s)
            if isinstance(context, Engine)
            else context
        )
        """What requests are built from: the folding engine, or native compaction."""
        self.provider = provider
        self.recorder = recorder
        self.config = config
        self.queues = queues if queues is not None else Queues()
        """Steering and follow-up messages waiting for the running loop."""
        self.tools = ordered_tools([*tools, *self.window.tools()])
        """Every tool, the fold tool included, in the fixed order the provider sees."""
        self.specs = tool_specs(self.tools)
        self.system = config.system_prompt or system_prompt(
            self.tools, config.cwd, datetime.date.today(), config.prompt_context
        )
        """The system prompt every request of this agent carries."""
        self.head = prompt_head_digest(self.system, self.specs)
        """The digest of that prompt and the tools, passed with each request: the engine
        sees a changed head (a resumed session on another day) as a cold cache."""
        self.factory = EntryFactory(_SessionIds(self.window, recorder), clock)
        self.running = False
        """Whether a run is in progress."""
        self.approval = (
            ApprovalGate(config.approver, guarded=guarded_names(self.tools))
            if config.approver is not None
            else None
        )
        """The permission asked before guarded tools run; it remembers "allow for this
        session" answers for the agent's life."""
        self._by_name = {tool.name: tool for tool in self.tools}
        self._listeners: list[Callable[[AgentEvent], None]] = []
        self._head_tokens: int | None = None
        self._batch_results: list[Entry] = []

    # -- observing and queueing ------------------------------------------------------------

    def subscribe(self, listener: Callable[[AgentEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every event; returns the function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def emit(self, event: AgentEvent) -> None:
        """Hand one event to every listener, in subscription order."""
        for listener in list(self._listeners):
            listener(event)

    def steer(self, text: str) -> None:
        """Queue a message that lands after the current tool batch.

        Raises:
            MessageTooLarge: it cannot fit one request on its own; nothing is queued.
        """
        self.check_message(text)
        self.queues.steer(text)

    def follow_up(self, text: str) -> None:
        """Queue a message that lands when the agent would otherwise stop.

        Raises:
            MessageTooLarge: it cannot fit one request on its own; nothing is queued.
        """
        self.check_message(text)
        self.queues.add_follow_up(text)

    def check_message(self, text: str) -> None:
        """Refuse a user message that cannot fit one request beside the system prompt and
        the tools (:mod:`pifold_agent.loop.message_size`); prompts, steering, follow-ups and
        notes are all checked before anything is recorded.

        Raises:
            MessageTooLarge: the message says its size, the room and what to do.
        """
        if self._head_tokens is None:
            self._head_tokens = head_tokens(self.window, self.system, self.specs)
        check_message_size(self.window, self._head_tokens, text)

    def note(self, text: str) -> Entry:
        """Record a user message now, between runs (the app's ``!command`` output): the model
        reads it with the next prompt. During a run, :meth:`steer` it instead.

        Raises:
            RuntimeError: a run is in progress.
            MessageTooLarge: it cannot fit one request on its own; nothing is recorded.
        """
        if self.running:
            raise RuntimeError("a run is in progress; steer the note instead")
        self.check_message(text)
        return self._add_user(text)

    # -- resuming -----------------------------------------------------------------------------

    def resume(self) -> list[Entry]:
        """Catch the engine up with the session after a restart; returns what was appended.

        Entries the session recorded but the engine never got (a kill between the two
        writes) are appended, then calls left without a result get an error result.
        """
        appended = self.window.catch_up(self.recorder.recorded())
        return appended + answer_orphans(self.window, self.recorder, self.factory)

    # -- running ------------------------------------------------------------------------------

    async def run(self, prompt: str | None = None) -> RunResult:
        """One run: ``prompt`` (or the queued messages when ``None``) until the model stops.

        Raises:
            RuntimeError: a run is already in progress on this agent, or there is nothing
                to continue from without a prompt.
            MessageTooLarge: the prompt cannot fit one request on its own; nothing is
                recorded and no run starts.
            asyncio.CancelledError: the caller aborted; the session is consistent.
        """
        if self.running:
            raise RuntimeError("a run is already in progress; steer or queue a follow-up")
        if prompt is not None:
            self.check_message(prompt)
        queued = len(self.queues.steering) + len(self.queues.follow_up)
        if prompt is None and not queued and not self._awaits_reply():
            raise RuntimeError(
                "nothing to continue: no message is queued and the model has already "
                "answered the last one; give a prompt"
            )
        self.running = True
        self.emit(RunStart(prompt))
        try:
            if prompt is not None:
                self._add_user(prompt)
            result = await self._turns(prompt is not None)
        except asyncio.CancelledError:
            self.recorder.sync()
            self.emit(RunEnd("aborted", "", "aborted by the user"))
            raise
        except ToolCrash as crash:
            self.emit(ErrorEvent(str(crash)))
            self.emit(RunEnd("error", "", str(crash)))
            raise
        finally:
            self.running = False
        self.emit(RunEnd(result.outcome, result.final_text, result.error))
        return result

    async def _turns(self, prompted: bool) -> RunResult:
        pending = self.queues.steering.take()
        if not prompted and not pending:
            pending = self.queues.follow_up.take()
        final_text = ""
        turn = 0
        while True:
            for text in pending:
                self._add_user(text)
            turn += 1
            self.emit(TurnStart(turn))
            done = await request_reply(self)
            entry = self._record_assistant(done)
            if done.stop_reason in EXCLUDED_STOP_REASONS:
                fallback = f"the provider ended the reply as {done.stop_reason}"
                message = done.error.message if done.error else fallback
                self.emit(ErrorEvent(message))
                self.emit(TurnEnd(turn, 0))
                return RunResult("error", final_text, message)
            final_text = entry.text if entry.content else final_text
            calls = entry.tool_calls
            if calls:
                self._batch_results = []
                await run_batch(
                    calls,
                    self._by_name,
                    self.config.cwd,
                    self.emit,
                    self._finalise,
                    self.approval,
                    self.window.result_limit_bytes(),
                )
                self._follow(calls)
            self.recorder.sync()
            self.emit(TurnEnd(turn, len(calls)))
            pending = self.queues.steering.take()
            if calls or pending:
                continue
            pending = self.queues.follow_up.take()
            if not pending:
                return RunResult("stop", final_text)

    def _awaits_reply(self) -> bool:
        """Whether the context ends with something the model has not answered yet (a user
        message, or tool results): what a run without a prompt continues from."""
        entries = self.window.entries()
        return bool(entries) and entries[-1].kind != "assistant"

    # -- recording ----------------------------------------------------------------------------

    def _add_user(self, text: str) -> Entry:
        self.emit(MessageStart("user"))
        entry = self.factory.user(text)
        self._record(entry)
        self.emit(MessageEnd(entry))
        return entry

    def _record_assistant(self, done: StreamDone) -> Entry:
        entry = self.factory.assistant(
            done, self.provider.name, self.provider.model, self.window.used_call_ids()
        )
        if done.stop_reason in EXCLUDED_STOP_REASONS:
            self.recorder.record(entry)  # for the record only: never sent again
        else:
            self._record(entry)
        self.emit(MessageEnd(entry, done.stop_reason))
        return entry

    def record_failed(self, done: StreamDone) -> None:
        """A failed attempt that will be retried: in the session file only."""
        self._record_assistant(done)

    def record_aborted(self, collector: StreamCollector) -> None:
        """The partial reply of a request the user aborted: in the session file only."""
        entry = self.factory.partial_assistant(
            collector.partial_blocks(), self.provider.name, self.provider.model, collector.usage
        )
        self.recorder.record(entry)
        self.emit(MessageEnd(entry, "aborted"))

    def _follow(self, calls: Sequence[ToolCallBlock]) -> None:
        """Append what the follower has to say after the batch's results (a host note)."""
        if self.config.follower is None:
            return
        batch = FinishedBatch(
            calls,
            tuple(self._batch_results),
            self._by_name,
            self.config.cwd,
            self.window,
            self.factory,
            self.emit,
        )
        for entry in self.config.follower.after_batch(batch):
            self.emit(MessageStart("user"))
            self._record(entry)
            self.emit(MessageEnd(entry))

    def _finalise(self, call: ToolCallBlock, outcome: ToolOutcome) -> None:
        entry = self.factory.tool_result(call, outcome)
        self._batch_results.append(entry)
        self._record(entry)
        self.emit(ToolExecutionEnd(call.id, call.name, outcome.is_error))
        self.emit(MessageEnd(entry))

    def _record(self, entry: Entry) -> None:
        """Session file first, engine second: a kill in between loses nothing."""
        self.recorder.record(entry)
        self.window.append(entry)


class _SessionIds:
    """Ids already used by the session: the engine's entries and everything recorded."""

    def __init__(self, window: ContextWindow, recorder: SessionRecorder) -> None:
        self._used = window.used_ids()
        self._recorded = {entry.id for entry in recorder.recorded()}

    def __contains__(self, identifier: object) -> bool:
        return identifier in self._used or identifier in self._recorded


__all__ = ["Agent", "RunResult"]
