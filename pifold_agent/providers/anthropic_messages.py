"""Anthropic Messages through the official SDK (``AsyncAnthropic.messages.create(stream=True)``).

Message conversion follows Pi (``pi-host.md`` §7.3): consecutive tool results merge into one
user message of ``tool_result`` blocks, thinking with a signature is replayed as thinking and
without one as text, empty text is dropped, and call ids are normalised.

Cache placement goes further than Pi: besides the system prompt's breakpoint, one breakpoint
sits on the last block of message ``settled_messages - 1`` (the end of what the next commit
will not rewrite, so a commit re-writes only what changed) and one on the last block of the
last message (the growing tail). When the two fall on the same block there is one. Thinking
blocks never carry one (the API refuses it), so a breakpoint steps back to the nearest block
that can. On the Claude API every request also asks the provider's cache diagnostics against
the previous reply (:mod:`pifold_agent.providers.cache_requests`); the reader keeps the
reply's id and the report (:mod:`pifold_agent.cache_report.reports`).

The streamed reply is read by :class:`~pifold_agent.providers.anthropic_stream.AnthropicReader`,
every field through the door (:mod:`pifold_agent.providers.reply_door`); whatever the server
or the connection does, the stream ends with a :class:`StreamDone`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from typing import Any

import anthropic

from pifold_agent.providers.anthropic_stream import REDACTED_PREFIX, STOP_REASONS, AnthropicReader
from pifold_agent.providers.assembly import normalise_call_id, sorted_json
from pifold_agent.providers.base import ProviderRequest, StreamEvent
from pifold_agent.providers.cache_requests import anthropic_diagnostics
from pifold_agent.providers.stream_reader import SdkStream, read_reply
from pifold_core.canonical import JsonValue

EPHEMERAL: dict[str, JsonValue] = {"type": "ephemeral"}

MAX_BREAKPOINTS = 4
"""Anthropic accepts at most four ``cache_control`` blocks in one request."""

DEFAULT_MAX_OUTPUT_TOKENS = 32_000
"""Pi's cap on the output a request asks for when the descriptor states none."""


@dataclass(frozen=True, slots=True)
class Converted:
    """The messages as Anthropic takes them, and where each engine message landed."""

    messages: list[dict[str, Any]]
    """Anthropic messages (``role`` and a list of content blocks)."""
    positions: list[list[tuple[int, int]]]
    """For each engine message, the ``(message, block)`` places of its blocks that may carry
    a breakpoint (thinking blocks excluded), in order."""


def convert_messages(messages: Sequence[dict[str, JsonValue]]) -> Converted:
    """The engine's wire messages as Anthropic messages, without breakpoints."""
    converted: list[dict[str, Any]] = []
    positions: list[list[tuple[int, int]]] = []
    merging_results = False
    for message in messages:
        role = message.get("role")
        if role == "tool":
            blocks = [_tool_result(message)]
            if not merging_results:
                converted.append({"role": "user", "content": []})
            merging_results = True
        else:
            merging_results = False
            blocks = _blocks(message.get("content"), assistant=role == "assistant")
            if not blocks:
                # The API refuses an empty message; nothing of it would reach the model.
                positions.append([])
                continue
            converted.append(
                {"role": "assistant" if role == "assistant" else "user", "content": []}
            )
        target = converted[-1]["content"]
        places: list[tuple[int, int]] = []
        for block in blocks:
            target.append(block)
            if block["type"] not in ("thinking", "redacted_thinking"):
                places.append((len(converted) - 1, len(target) - 1))
        positions.append(places)
    return Converted(converted, positions)


def place_breakpoints(converted: Converted, settled_messages: int | None) -> list[tuple[int, int]]:
    """Put ``cache_control`` on the settled boundary and the tail; returns where it went."""
    places: list[tuple[int, int]] = []
    tail = _last_place(converted.positions, len(converted.positions))
    if settled_messages is not None and settled_messages > 0:
        settled = _last_place(converted.positions, min(settled_messages, len(converted.positions)))
        if settled is not None:
            places.append(settled)
    if tail is not None and tail not in places:
        places.append(tail)
    # The system prompt holds one of the four: the message breakpoints get the rest.
    places = places[-(MAX_BREAKPOINTS - 1) :]
    for message_index, block_index in places:
        converted.messages[message_index]["content"][block_index]["cache_control"] = dict(EPHEMERAL)
    return places


def build_body(
    request: ProviderRequest, model: str, max_output_tokens: int, diagnostics: bool = False
) -> dict[str, Any]:
    """The request body the adapter sends (``stream`` aside), breakpoints placed, and the
    cache diagnostics asked against the previous reply when ``diagnostics``."""
    converted = convert_messages(request.messages)
    place_breakpoints(converted, request.settled_messages)
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_output_tokens or max_output_tokens,
        "messages": converted.messages,
    }
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": EPHEMERAL}]
    if request.tools:
        body["tools"] = [
            {"type": tool.anthropic_type, "name": tool.name}
            if tool.anthropic_type is not None
            else {
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters,
            }
            for tool in request.tools
        ]
    if diagnostics:
        body["diagnostics"] = {"previous_message_id": request.cache_baseline}
    return body


class AnthropicMessages:
    """The Anthropic Messages adapter."""

    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str | None = None,
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        timeout_s: float = 600.0,
        cache_diagnostics: bool | None = None,
    ) -> None:
        self._model = model
        self.max_output_tokens = max_output_tokens
        """The output a request asks for when the request states none."""
        self.cache_diagnostics = (
            anthropic_diagnostics(base_url, model)
            if cache_diagnostics is None
            else cache_diagnostics
        )
        """Whether every request asks the provider's cache diagnostics (``None`` given: on the
        Claude API's own host, or for a Claude model behind another URL,
        :mod:`pifold_agent.providers.cache_requests`)."""
        # The loop owns retry with backoff; the SDK must not retry behind its back.
        self.client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s
        )

    @property
    def name(self) -> str:
        return "anthropic"

    @property
    def model(self) -> str:
        return self._model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        body = build_body(request, self._model, self.max_output_tokens, self.cache_diagnostics)
        compared = request.cache_baseline is not None if self.cache_diagnostics else None
        reader = AnthropicReader(self._model, compared)

        def opening() -> Awaitable[SdkStream]:
            return self.client.messages.create(
                model=body["model"],
                max_tokens=body["max_tokens"],
                messages=body["messages"],
                system=body.get("system", anthropic.omit),
                tools=body.get("tools", anthropic.omit),
                diagnostics=body.get("diagnostics", anthropic.omit),
                stream=True,
            )

        async for item in read_reply(reader, opening):
            yield item


def _blocks(content: JsonValue, assistant: bool) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for record in content if isinstance(content, list) else []:
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        text = record.get("text")
        if kind == "text" and isinstance(text, str) and text:
            blocks.append({"type": "text", "text": text})
        elif kind == "thinking" and isinstance(text, str):
            signature = record.get("signature")
            if assistant and isinstance(signature, str) and signature.startswith(REDACTED_PREFIX):
                blocks.append(
                    {"type": "redacted_thinking", "data": signature[len(REDACTED_PREFIX) :]}
                )
            elif assistant and isinstance(signature, str) and signature:
                blocks.append({"type": "thinking", "thinking": text, "signature": signature})
            elif text:
                blocks.append({"type": "text", "text": text})
        elif kind == "tool_call" and assistant:
            arguments = record.get("arguments")
            # The API takes an object; unparseable text the model sent travels inside one.
            value = arguments if isinstance(arguments, dict) else {"unparsed_arguments": arguments}
            blocks.append(
                {
                    "type": "tool_use",
                    "id": normalise_call_id(str(record.get("id"))),
                    "name": record.get("name"),
                    "input": sorted_json(value),
                }
            )
        elif kind == "image":
            blocks.append(_image(record))
    return blocks


def _image(record: dict[str, JsonValue]) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": record.get("media_type"),
            "data": record.get("data"),
        },
    }


def _tool_result(message: dict[str, JsonValue]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": normalise_call_id(str(message.get("call_id"))),
    }
    content = _blocks(message.get("content"), assistant=False)
    if content:
        block["content"] = content
    if message.get("is_error") is True:
        block["is_error"] = True
    return block


def _last_place(positions: list[list[tuple[int, int]]], count: int) -> tuple[int, int] | None:
    """The last breakable block among the first ``count`` engine messages."""
    for places in reversed(positions[:count]):
        if places:
            return places[-1]
    return None


__all__ = [
    "REDACTED_PREFIX",
    "STOP_REASONS",
    "AnthropicMessages",
    "Converted",
    "build_body",
    "convert_messages",
    "place_breakpoints",
]
