"""OpenAI Responses through the official SDK (``AsyncOpenAI.responses.create(stream=True)``).

Requests are stateless (``store: false``), so every turn sends the whole projection: the
reasoning items the model returned are replayed from the thinking block's signature (the
item's JSON, encrypted content included), tool calls travel as ``function_call`` and
``function_call_output`` items, and ``prompt_cache_key`` is the session id so the
provider routes every request of a session to the same cache (``pi-host.md`` §7.4, §7.6).
GPT-5.6 and later on OpenAI's own API also get explicit cache breakpoints (the system prompt,
the settled boundary) and ask the provider's cache diagnostics against the previous
response (:mod:`pifold_agent.providers.cache_requests`).

Usage is mapped so the buckets are disjoint: OpenAI's ``input_tokens`` includes what was
read from (and written to) the cache, so both are taken out; ``output_tokens`` already
includes reasoning, which is not added again (``pi-host.md`` §8.4). The streamed reply is read
by :class:`~pifold_agent.providers.responses_stream.ResponsesReader`, every field through the
door (:mod:`pifold_agent.providers.reply_door`, :mod:`pifold_agent.providers.reply_usage`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

import openai

from pifold_agent.providers.assembly import arguments_text, normalise_call_id
from pifold_agent.providers.base import ProviderRequest, StreamEvent
from pifold_agent.providers.cache_requests import (
    BREAKPOINT,
    openai_cache_controls,
    place_openai_breakpoint,
)
from pifold_agent.providers.reply_door import without_lone_surrogates
from pifold_agent.providers.responses_stream import (
    CALL_ID_SEPARATOR,
    NEXT_MESSAGE_KEY,
    ResponsesReader,
)
from pifold_agent.providers.stream_reader import read_reply
from pifold_core.canonical import JsonValue

REASONING_PREFIXES = ("gpt-5", "o1", "o3", "o4", "codex")
"""Model ids that reason: they take the system prompt as ``developer`` and return reasoning."""


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` is one of OpenAI's reasoning models (by its id)."""
    bare = model.rsplit("/", 1)[-1].lower()
    return bare.startswith(REASONING_PREFIXES)


def convert_input(messages: Sequence[dict[str, JsonValue]]) -> list[dict[str, Any]]:
    """The engine's wire messages as Responses input items (the system prompt aside)."""
    return converted_input(messages)[0]


def converted_input(
    messages: Sequence[dict[str, JsonValue]], tool_parts: bool = False
) -> tuple[list[dict[str, Any]], list[range]]:
    """The input items, and for each engine message the items it became. ``tool_parts``:
    every tool result's output as a list of parts (which can carry a cache breakpoint)."""
    items: list[dict[str, Any]] = []
    ranges: list[range] = []
    for message in messages:
        start = len(items)
        role = message.get("role")
        content = message.get("content")
        records = (
            [record for record in content if isinstance(record, dict)]
            if isinstance(content, list)
            else []
        )
        if role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": _call_id(str(message.get("call_id"))),
                    "output": _tool_output(records, tool_parts),
                }
            )
        elif role == "assistant":
            items.extend(_assistant_items(records))
        else:
            parts = _user_parts(records)
            if parts:
                items.append({"role": "user", "content": parts})
        ranges.append(range(start, len(items)))
    return items, ranges


def build_body(
    request: ProviderRequest, model: str, reasoning: bool, cache_controls: bool = False
) -> dict[str, Any]:
    """The request body the adapter sends (``stream`` aside). ``cache_controls``: explicit
    cache breakpoints on the system prompt and the settled boundary, and the provider's
    cache diagnostics against the previous reply (:mod:`pifold_agent.providers.cache_requests`)."""
    items, ranges = converted_input(request.messages, tool_parts=cache_controls)
    if request.system:
        role = "developer" if reasoning else "system"
        system: str | list[dict[str, Any]] = request.system
        if cache_controls:
            system = [{"type": "input_text", "text": request.system}]
            system[0]["prompt_cache_breakpoint"] = dict(BREAKPOINT)
        items.insert(0, {"role": role, "content": system})
        ranges = [range(span.start + 1, span.stop + 1) for span in ranges]
    if cache_controls:
        place_openai_breakpoint(items, ranges, request.settled_messages)
    body: dict[str, Any] = {"model": model, "input": items, "store": False}
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "strict": False,
            }
            for tool in request.tools
        ]
    if request.session_id:
        body["prompt_cache_key"] = request.session_id
    if cache_controls and request.cache_baseline is not None:
        body["prompt_cache_options"] = {"comparison_response_id": request.cache_baseline}
    if request.max_output_tokens:
        body["max_output_tokens"] = request.max_output_tokens
    if reasoning:
        # Stateless requests can only replay reasoning that came back encrypted.
        body["include"] = ["reasoning.encrypted_content"]
        body["reasoning"] = {"summary": "auto"}
    return body


class OpenAIResponses:
    """The OpenAI Responses adapter."""

    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str | None = None,
        reasoning: bool | None = None,
        timeout_s: float = 600.0,
        cache_controls: bool | None = None,
    ) -> None:
        self._model = model
        self.reasoning = is_reasoning_model(model) if reasoning is None else reasoning
        """Whether the model reasons (system as ``developer``, encrypted reasoning kept)."""
        self.cache_controls = (
            openai_cache_controls(model) if cache_controls is None else cache_controls
        )
        """Whether requests carry explicit cache breakpoints and ask the provider's cache
        diagnostics (``None`` given: GPT-5.6 and later, on OpenAI's host or behind a URL,
        :mod:`pifold_agent.providers.cache_requests`)."""
        # The loop owns retry with backoff; the SDK must not retry behind its back.
        self.client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s
        )

    @property
    def name(self) -> str:
        return "openai"

    @property
    def model(self) -> str:
        return self._model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        body = build_body(request, self._model, self.reasoning, self.cache_controls)
        compared = request.cache_baseline is not None if self.cache_controls else None
        reader = ResponsesReader(self._model, compared)
        async for item in read_reply(
            reader, lambda: self.client.responses.create(**body, stream=True)
        ):
            yield item


def split_call_id(stored: str) -> tuple[str, str | None]:
    """The call id to send and the Responses item id, when ``stored`` carries one.

    Only an id this adapter made (``call_id|fc_...``) is split: any other id is normalised
    whole, so two different foreign ids can never come out the same.
    """
    call_id, separator, item_id = stored.partition(CALL_ID_SEPARATOR)
    if separator and item_id.startswith("fc") and CALL_ID_SEPARATOR not in item_id:
        return normalise_call_id(call_id), item_id
    return normalise_call_id(stored), None


def _call_id(stored: str) -> str:
    return split_call_id(stored)[0]


def _assistant_items(records: list[dict[str, JsonValue]]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    message_id: str | None = None
    for record in records:
        kind = record.get("type")
        if kind == "thinking":
            reasoning = _reasoning_item(record.get("signature"))
            if reasoning is not None:
                following = reasoning.pop(NEXT_MESSAGE_KEY, None)
                message_id = following if isinstance(following, str) else None
                items.append(reasoning)
            # Reasoning without its item (another provider's, or an aborted stream) cannot be
            # replayed as reasoning, and is not the assistant's answer: it is left out.
        elif kind == "text":
            text = record.get("text")
            if isinstance(text, str) and text:
                items.append(_assistant_text(text, message_id))
                message_id = None
        elif kind == "tool_call":
            message_id = None
            call_id, item_id = split_call_id(str(record.get("id")))
            item: dict[str, Any] = {
                "type": "function_call",
                "call_id": call_id,
                "name": record.get("name"),
                "arguments": arguments_text(record.get("arguments")),
            }
            if item_id is not None:
                item["id"] = item_id
            items.append(item)
    return items


def _assistant_text(text: str, message_id: str | None) -> dict[str, Any]:
    if message_id is None:
        return {"role": "assistant", "content": text}
    # The message that followed a reasoning item goes back as the output item it was.
    return {
        "type": "message",
        "role": "assistant",
        "id": message_id,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _reasoning_item(signature: JsonValue) -> dict[str, Any] | None:
    if not isinstance(signature, str) or not signature.startswith("{"):
        return None
    try:
        item = json.loads(signature)
    except (ValueError, RecursionError):
        return None
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return None
    # Kept by an earlier release with its lone surrogates escaped: they cannot be sent.
    repaired: dict[str, Any] = without_lone_surrogates(item)
    return repaired


def _user_parts(records: list[dict[str, JsonValue]]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for record in records:
        text = record.get("text")
        if record.get("type") in ("text", "thinking") and isinstance(text, str) and text:
            parts.append({"type": "input_text", "text": text})
        elif record.get("type") == "image":
            url = f"data:{record.get('media_type')};base64,{record.get('data')}"
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
    return parts


def _tool_output(
    records: list[dict[str, JsonValue]], as_parts: bool = False
) -> str | list[dict[str, Any]]:
    parts = _user_parts(records)
    if as_parts and parts:
        return parts
    if all(part["type"] == "input_text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


__all__ = [
    "OpenAIResponses",
    "build_body",
    "convert_input",
    "converted_input",
    "is_reasoning_model",
    "split_call_id",
]
