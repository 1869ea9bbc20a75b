"""Chat Completions through the official ``openai`` SDK, for OpenAI and any compatible server.

``--base-url`` points it at Ollama, vLLM, a llama.cpp server, LM Studio or OpenRouter. Usage
is asked for in the stream (``stream_options.include_usage``); tool calls arrive in pieces
keyed by their index; reasoning is read from ``reasoning_content`` or ``reasoning``, the
fields the compatible servers use. Output is ``completion_tokens`` alone: OpenAI already
counts reasoning in it, so adding ``reasoning_tokens`` (as Pi does) would count it twice
(``pi-host.md`` §7.4, §8.4).

Thinking is not sent back: no compatible server accepts another turn's reasoning, and some
refuse it.

The streamed chunks are read by :class:`~pifold_agent.providers.chat_stream.ChatReader`,
every field through the door (:mod:`pifold_agent.providers.reply_door`): a compatible server
is trusted for nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import openai

from pifold_agent.providers.assembly import arguments_text
from pifold_agent.providers.base import ProviderRequest, StreamDone, StreamEvent
from pifold_agent.providers.chat_stream import FINISH_REASONS, REASONING_FIELDS, ChatReader
from pifold_agent.providers.openai_responses import is_reasoning_model, split_call_id
from pifold_agent.providers.stream_reader import read_reply
from pifold_agent.providers.text_calls import run_written_call
from pifold_core.canonical import JsonValue


def convert_messages(
    system: str, messages: Sequence[dict[str, JsonValue]], developer: bool
) -> list[dict[str, Any]]:
    """The system prompt and the engine's wire messages as Chat Completions messages."""
    converted: list[dict[str, Any]] = []
    if system:
        converted.append({"role": "developer" if developer else "system", "content": system})
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        records = (
            [record for record in content if isinstance(record, dict)]
            if isinstance(content, list)
            else []
        )
        if role == "tool":
            converted.append(
                {
                    "role": "tool",
                    "tool_call_id": _call_id(str(message.get("call_id"))),
                    "content": _content(records),
                }
            )
        elif role == "assistant":
            assistant = _assistant(records)
            if assistant is not None:
                converted.append(assistant)
        else:
            user_content = _content(records)
            if user_content:
                converted.append({"role": "user", "content": user_content})
    return converted


def build_body(request: ProviderRequest, model: str, openai_proper: bool) -> dict[str, Any]:
    """The request body the adapter sends (``stream`` aside)."""
    developer = openai_proper and is_reasoning_model(model)
    body: dict[str, Any] = {
        "model": model,
        "messages": convert_messages(request.system, request.messages, developer),
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    if openai_proper:
        # Only OpenAI's own server is sent these: some compatible servers refuse unknown fields.
        body["store"] = False
        if request.session_id:
            body["prompt_cache_key"] = request.session_id
    if request.max_output_tokens:
        # OpenAI itself wants the new name; most compatible servers only know the old one.
        key = "max_completion_tokens" if openai_proper else "max_tokens"
        body[key] = request.max_output_tokens
    return body


class OpenAIChat:
    """The Chat Completions adapter (OpenAI or any compatible server)."""

    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 600.0,
        text_calls: bool = True,
    ) -> None:
        self._model = model
        self.openai_proper = base_url is None or "api.openai.com" in base_url
        """Whether the server is OpenAI's own (its parameter names and roles)."""
        self.text_calls = text_calls and not self.openai_proper
        """Whether a call the model wrote as text runs as that call
        (:mod:`~pifold_agent.providers.text_calls`): a compatible server's, unless switched
        off; never OpenAI's own, whose calls are always structured."""
        # The loop owns retry with backoff; the SDK must not retry behind its back.
        self.client = openai.AsyncOpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s
        )

    @property
    def name(self) -> str:
        return "openai-chat"

    @property
    def model(self) -> str:
        return self._model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        body = build_body(request, self._model, self.openai_proper)
        reader = ChatReader(self._model)
        offered = {spec.name for spec in request.tools}
        async for item in read_reply(
            reader,
            lambda: self.client.chat.completions.create(**body, stream=True),
            lambda end: self._finished(end, offered),
        ):
            yield item

    def _finished(self, end: list[StreamEvent], offered: set[str]) -> Iterator[StreamEvent]:
        """The reply's end, a call the model wrote as text made a tool call (with a warning
        saying so) when the server's model writes its calls (``text_calls``)."""
        for item in end:
            if isinstance(item, StreamDone) and self.text_calls:
                item, warning = run_written_call(item, offered)
                if warning is not None:
                    yield warning
            yield item


def _call_id(stored: str) -> str:
    return split_call_id(stored)[0]


def _content(records: list[dict[str, JsonValue]]) -> str | list[dict[str, Any]]:
    """Plain text when there is only text (what every server takes), parts with images."""
    parts: list[dict[str, Any]] = []
    for record in records:
        text = record.get("text")
        if record.get("type") in ("text", "thinking") and isinstance(text, str) and text:
            parts.append({"type": "text", "text": text})
        elif record.get("type") == "image":
            url = f"data:{record.get('media_type')};base64,{record.get('data')}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


def _assistant(records: list[dict[str, JsonValue]]) -> dict[str, Any] | None:
    texts = [
        record["text"]
        for record in records
        if record.get("type") == "text" and isinstance(record.get("text"), str) and record["text"]
    ]
    calls = [
        {
            "id": _call_id(str(record.get("id"))),
            "type": "function",
            "function": {
                "name": record.get("name"),
                "arguments": arguments_text(record.get("arguments")),
            },
        }
        for record in records
        if record.get("type") == "tool_call"
    ]
    if not texts and not calls:
        return None
    message: dict[str, Any] = {
        "role": "assistant",
        "content": "\n".join(str(text) for text in texts) if texts else None,
    }
    if calls:
        message["tool_calls"] = calls
    return message


__all__ = [
    "FINISH_REASONS",
    "REASONING_FIELDS",
    "OpenAIChat",
    "build_body",
    "convert_messages",
]
