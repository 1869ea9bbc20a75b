"""A provider that plays a script: a real trace, or a small JSON-lines script file.

It drives the end-to-end tests and the no-key demo through exactly the loop, engine and
session code a real provider goes through: it receives the engine's projection, streams its
text in chunks (a UI sees deltas), and reports usage estimated with the engine's tokenizer
over what it was sent (system prompt, tools and messages), so the engine's measurement runs
as it would against a real model.

**Sources.** Any trace :func:`pifold_agent.importers.load_trace` reads, or a script file
whose first line is the header ``{"script": "pifold", "version": 1}``. Every later line is
one JSON object, one of:

* ``{"user": "text"}``: the user speaks (see *User messages* below).
* ``{"assistant": "text", "tool_calls": [{"id": "c1", "name": "bash", "arguments": {...}}],
  "thinking": "..."}``: one model reply; ``tool_calls`` and ``thinking`` are optional.
* ``{"tool_result": "text", "call_id": "c1", "is_error": false}``: the recorded result of a
  call, used only when the header says ``"tools": "recorded"``.
* ``{"error": "context_too_long" | "transient" | "fatal", "message": "...",
  "retry_after_s": 0.5}``: the next request fails this way (the reply after it is played
  to the retry).
* ``{"summary": "text"}``: the answer to the next summarisation request (native
  compaction's, recognised by its system prompt); summaries are played in their own order,
  apart from the replies.

Header fields: ``tools`` is ``"execute"`` (the default for scripts: calls run for real in
the working directory) or ``"recorded"`` (the default for traces: calls are answered with
the recorded results by :meth:`ScriptedProvider.recorded_tools`); ``model`` names the model;
``chunk_chars`` and ``chunk_delay_s`` pace the stream.

**Reading the context.** A model learns a fold's handle by reading its placeholder in the
request; a script cannot know it in advance (handles derive from the folded bytes). So in a
tool call's arguments the text ``${fold:N}`` stands for the N-th distinct fold handle
(1-based) in the messages of the request being answered, in order of appearance, and
``${hit:N}`` for the entry id of the N-th hit of the latest ``search`` result there. A script
that names a fold the request does not show fails that request (a fatal error naming it).

**User messages.** The user messages before the first reply are the opening prompt
(:meth:`ScriptedProvider.opening_prompt`, the rest queued as steering). Once attached to the
agent's queues (:meth:`ScriptedProvider.attach`), the provider queues the user messages that
follow each reply as it plays it: steering when the reply called tools (the message lands
after the batch, where the trace had it), a follow-up otherwise. Two replies in a row with no
tool call and no user between them get a follow-up ``Continue.``, the one way a run goes on.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator

from pifold_agent.compaction.prompts import SUMMARISER_SYSTEM_PROMPT
from pifold_agent.loop.queues import Queues
from pifold_agent.providers.base import (
    ErrorClass,
    ProviderError,
    ProviderRequest,
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageUpdate,
)
from pifold_agent.scripted.script_format import (
    Failure,
    Reply,
    Script,
    ScriptError,
    UserTurn,
    load_script,
    script_from_entries,
)
from pifold_agent.tools.protocol import ToolContext, ToolOutcome
from pifold_core.canonical import JsonValue, canonical_bytes, sha256_hex
from pifold_core.entries import Block, TextBlock, ThinkingBlock, ToolCallBlock, Usage
from pifold_core.tokens import TokenCounter
from pifold_core.tool import TOOL_NAME

FOLD_REFERENCE = re.compile(r"\$\{fold:(\d+)\}")
"""A script's reference to the N-th fold handle visible in the request."""

FOLD_HANDLE = re.compile(r"fold-[0-9a-f]{12}")
"""How a fold handle reads in a placeholder."""

HIT_REFERENCE = re.compile(r"\$\{hit:(\d+)\}")
"""A script's reference to the entry id of the N-th hit of the latest ``search`` result in
the request (a model reads it there; a script cannot know an entry id in advance)."""

SEARCH_HIT = re.compile(r"^(\d+)\. .+? · entry (\S+) · ", re.MULTILINE)
"""How a hit's first line reads in a ``search`` result (:mod:`pifold_core.tool.render_search`)."""

CONTINUE_PROMPT = "Continue."
"""The follow-up queued between two replies that had no user message between them."""


class RecordedTool:
    """A tool of a recorded script: answers each call with the result the script recorded."""

    def __init__(self, name: str, results: dict[str, ToolOutcome]) -> None:
        self._name = name
        self._results = results

    @property
    def name(self) -> str:
        return self._name

    @property
    def description(self) -> str:
        return f"{self._name} (answered with the results recorded in the script)"

    @property
    def parameters(self) -> dict[str, JsonValue]:
        return {"type": "object"}

    async def run(self, arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        recorded = self._results.get(context.call_id)
        if recorded is None:
            return ToolOutcome("error: the script recorded no result for this call", True)
        return recorded


class ScriptedProvider:
    """Plays a :class:`Script`'s replies, one per request."""

    def __init__(self, script: Script, counter: TokenCounter) -> None:
        self.script = script
        self._counter = counter
        self._position = 0
        self._queues: Queues | None = None
        self._pending_steer: list[str] = []
        self._summaries = 0
        self.requests: list[ProviderRequest] = []
        """Every request received, in order (what a test compares with the engine's)."""

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model(self) -> str:
        return self.script.model

    def opening_prompt(self) -> str | None:
        """The first user message; the others before the first reply are queued as steering
        once :meth:`attach` is called."""
        opening = self._users()
        if not opening:
            return None
        self._pending_steer = opening[1:]
        return opening[0]

    def attach(self, queues: Queues) -> None:
        """Deliver the script's user messages through the agent's queues (all at once, so a
        run of several user messages lands together as it did in the script)."""
        queues.steering.mode = "all"
        queues.follow_up.mode = "all"
        self._queues = queues
        for text in self._pending_steer:
            queues.steer(text)
        self._pending_steer = []

    def recorded_tools(self) -> list[RecordedTool]:
        """One recorded tool per tool name the script calls (the fold tool always runs)."""
        names = sorted(
            {
                block.name
                for step in self.script.steps
                if isinstance(step, Reply)
                for block in step.content
                if isinstance(block, ToolCallBlock) and block.name != TOOL_NAME
            }
        )
        return [RecordedTool(name, self.script.results) for name in names]

    @property
    def exhausted(self) -> bool:
        """Whether every reply has been played."""
        return not any(
            isinstance(step, Reply | Failure) for step in self.script.steps[self._position :]
        )

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        usage = Usage(input_tokens=self._prompt_tokens(request))
        if request.system == SUMMARISER_SYSTEM_PROMPT:
            async for event in self._summary(usage):
                yield event
            return
        step = self._next_reply()
        if step is None:
            yield StreamDone(
                (),
                "error",
                usage,
                self.model,
                ProviderError(
                    ErrorClass.FATAL, "the script has no more assistant messages to play"
                ),
            )
            return
        if isinstance(step, Failure):
            yield StreamDone((), "error", None, self.model, step.error)
            return
        try:
            content = _read_handles(step.content, request)
        except LookupError as error:
            yield StreamDone(
                (), "error", usage, self.model, ProviderError(ErrorClass.FATAL, str(error))
            )
            return
        step = Reply(content)
        yield UsageUpdate(usage)
        for index, block in enumerate(step.content):
            async for event in self._chunks(index, block):
                yield event
        output = sum(self._counter.count_text(_block_text(block)) for block in step.content)
        usage = Usage(input_tokens=usage.input_tokens, output_tokens=output)
        calls = any(isinstance(block, ToolCallBlock) for block in step.content)
        self._queue_users(calls)
        yield StreamDone(step.content, "tool_use" if calls else "stop", usage, self.model)

    async def _summary(self, usage: Usage) -> AsyncIterator[StreamEvent]:
        if self._summaries >= len(self.script.summaries):
            failure = ProviderError(ErrorClass.FATAL, "the script has no more summaries to play")
            yield StreamDone((), "error", usage, self.model, failure)
            return
        text = self.script.summaries[self._summaries].text
        self._summaries += 1
        async for event in self._chunks(0, TextBlock(text)):
            yield event
        output = Usage(
            input_tokens=usage.input_tokens, output_tokens=self._counter.count_text(text)
        )
        yield StreamDone((TextBlock(text),), "stop", output, self.model)

    async def _chunks(self, index: int, block: Block) -> AsyncIterator[StreamEvent]:
        size = self.script.chunk_chars
        if isinstance(block, TextBlock | ThinkingBlock):
            for start in range(0, max(len(block.text), 1), size):
                piece = block.text[start : start + size]
                await asyncio.sleep(self.script.chunk_delay_s)
                if isinstance(block, TextBlock):
                    yield TextDelta(index, piece)
                else:
                    yield ThinkingDelta(index, piece)
        elif isinstance(block, ToolCallBlock):
            text = json.dumps(block.arguments)
            for start in range(0, max(len(text), 1), size):
                await asyncio.sleep(self.script.chunk_delay_s)
                yield ToolCallDelta(index, block.id, block.name, text[start : start + size])

    def _next_reply(self) -> Reply | Failure | None:
        steps = self.script.steps
        while self._position < len(steps):
            step = steps[self._position]
            self._position += 1
            if isinstance(step, Reply | Failure):
                return step
        return None

    def _users(self) -> list[str]:
        texts = []
        steps = self.script.steps
        while self._position < len(steps):
            step = steps[self._position]
            if not isinstance(step, UserTurn):
                break
            texts.append(step.text)
            self._position += 1
        return texts

    def _queue_users(self, called_tools: bool) -> None:
        if self._queues is None:
            return
        texts = self._users()
        if not texts and not called_tools and not self.exhausted:
            texts = [CONTINUE_PROMPT]
        for text in texts:
            if called_tools:
                self._queues.steer(text)
            else:
                self._queues.add_follow_up(text)

    def _prompt_tokens(self, request: ProviderRequest) -> int:
        tools = [[spec.name, spec.description, spec.parameters] for spec in request.tools]
        total = self._counter.count_text(request.system)
        total += self._counter.count_text(canonical_bytes(tools).decode("utf-8"))
        for message in request.messages:
            total += self._counter.count_message(message, sha256_hex(canonical_bytes(message)))
        return max(total, 1)


def _read_handles(content: tuple[Block, ...], request: ProviderRequest) -> tuple[Block, ...]:
    """``content`` with every ``${fold:N}`` in call arguments replaced by the request's
    N-th visible fold handle."""
    if not any(
        isinstance(block, ToolCallBlock)
        and (
            FOLD_REFERENCE.search(json.dumps(block.arguments))
            or HIT_REFERENCE.search(json.dumps(block.arguments))
        )
        for block in content
    ):
        return content
    hits = _latest_hits(request)
    visible: list[str] = []
    for message in request.messages:
        for found in FOLD_HANDLE.findall(canonical_bytes(message).decode("utf-8")):
            if found not in visible:
                visible.append(found)

    def handle(match: re.Match[str]) -> str:
        number = int(match.group(1))
        if not 1 <= number <= len(visible):
            raise LookupError(
                f"the script names fold {number}, but the request shows {len(visible)} fold(s)"
            )
        return visible[number - 1]

    def hit(match: re.Match[str]) -> str:
        number = int(match.group(1))
        if number not in hits:
            raise LookupError(
                f"the script names search hit {number}, but the request's latest search "
                f"result shows {len(hits)} hit(s)"
            )
        return hits[number]

    blocks: list[Block] = []
    for block in content:
        if isinstance(block, ToolCallBlock):
            text = FOLD_REFERENCE.sub(handle, json.dumps(block.arguments))
            text = HIT_REFERENCE.sub(hit, text)
            block = ToolCallBlock(block.id, block.name, json.loads(text))
        blocks.append(block)
    return tuple(blocks)


def _latest_hits(request: ProviderRequest) -> dict[int, str]:
    """The hits (number to entry id) of the latest message holding search hits."""
    for message in reversed(request.messages):
        content = message.get("content")
        texts = [
            str(block.get("text"))
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict) and isinstance(block.get("text"), str)
        ]
        found = {int(number): entry for number, entry in SEARCH_HIT.findall("\n".join(texts))}
        if found:
            return found
    return {}


def _block_text(block: Block) -> str:
    if isinstance(block, TextBlock | ThinkingBlock):
        return block.text
    if isinstance(block, ToolCallBlock):
        return block.name + json.dumps(block.arguments)
    return ""


__all__ = [
    "CONTINUE_PROMPT",
    "RecordedTool",
    "Script",
    "ScriptError",
    "ScriptedProvider",
    "load_script",
    "script_from_entries",
]
