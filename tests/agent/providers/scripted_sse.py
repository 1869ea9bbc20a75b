"""SSE bodies for a scripted assistant turn, in each provider's documented event format.

The recorded bodies under ``recordings/`` pin each format down event by event; these
generators write the same formats for turns a test scripts as it goes (text, then tool
calls), so a multi-turn session can run through each real SDK. The usage reported is the
request body's size in chars/4 tokens, the same rule as the engine's test counter.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Turn:
    """One assistant reply: text, then tool calls ``(id, name, arguments)``."""

    text: str
    calls: Sequence[tuple[str, str, dict[str, Any]]] = field(default_factory=tuple)


def _event(name: str | None, data: dict[str, Any]) -> str:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _pieces(text: str, size: int = 17) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


ABSENT: Any = object()
"""A field left out of the reply altogether (as opposed to sent as ``null``)."""


def anthropic_turn(
    turn: Turn,
    prompt_tokens: int,
    model: str,
    message_id: str = "msg_s",
    diagnostics: Any = ABSENT,
    cached: int | None = None,
) -> bytes:
    """Anthropic Messages: message_start, blocks, message_delta, message_stop. The message
    carries ``diagnostics`` when given (``None``: sent as ``null``); ``cached``: the tokens
    read from the cache (half the prompt when not given)."""
    cached = prompt_tokens // 2 if cached is None else cached
    usage = {
        "input_tokens": prompt_tokens - cached,
        "cache_read_input_tokens": cached,
        "cache_creation_input_tokens": 0,
        "output_tokens": 1,
    }
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
    }
    if diagnostics is not ABSENT:
        message["diagnostics"] = diagnostics
    out = [
        _event(
            "message_start",
            {"type": "message_start", "message": {**message, "content": [], "usage": usage}},
        )
    ]
    index = 0
    if turn.text:
        out.append(
            _event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        for piece in _pieces(turn.text):
            out.append(
                _event(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
            )
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for call_id, name, arguments in turn.calls:
        start = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        out.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        for piece in _pieces(json.dumps(arguments)):
            delta = {"type": "input_json_delta", "partial_json": piece}
            out.append(
                _event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = "tool_use" if turn.calls else "end_turn"
    out.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 20},
            },
        )
    )
    out.append(_event("message_stop", {"type": "message_stop"}))
    return "".join(out).encode()


def responses_turn(
    turn: Turn,
    prompt_tokens: int,
    model: str,
    number: int,
    diagnostics: Any = ABSENT,
    cached: int | None = None,
) -> bytes:
    """OpenAI Responses: created, output items with their deltas, completed (the completed
    response carries ``prompt_cache_diagnostics`` when given; ``cached``: the tokens read
    from the cache, half the prompt when not given)."""
    response = {
        "id": f"resp_{number}",
        "object": "response",
        "status": "in_progress",
        "model": model,
        "output": [],
    }
    out = [
        _event(
            "response.created",
            {"type": "response.created", "sequence_number": 0, "response": response},
        )
    ]
    output_index = 0
    if turn.text:
        item = {
            "id": f"msg_{number}",
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        out.append(
            _event(
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": 0, "item": item},
            )
        )
        for piece in _pieces(turn.text):
            out.append(
                _event(
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": 0,
                        "content_index": 0,
                        "delta": piece,
                    },
                )
            )
        output_index = 1
    for call_id, name, arguments in turn.calls:
        item_id = f"fc_{number}_{output_index}"
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call_id,
            "name": name,
        }
        out.append(
            _event(
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": output_index, "item": item},
            )
        )
        text = json.dumps(arguments)
        for piece in _pieces(text):
            out.append(
                _event(
                    "response.function_call_arguments.delta",
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item_id,
                        "output_index": output_index,
                        "delta": piece,
                    },
                )
            )
        out.append(
            _event(
                "response.function_call_arguments.done",
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item_id,
                    "output_index": output_index,
                    "arguments": text,
                },
            )
        )
        output_index += 1
    cached = prompt_tokens // 2 if cached is None else cached
    usage = {
        "input_tokens": prompt_tokens,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt_tokens + 20,
    }
    done: dict[str, Any] = {**response, "status": "completed", "usage": usage}
    if diagnostics is not ABSENT:
        done["prompt_cache_diagnostics"] = diagnostics
    out.append(_event("response.completed", {"type": "response.completed", "response": done}))
    return "".join(out).encode()


def chat_turn(turn: Turn, prompt_tokens: int, model: str) -> bytes:
    """Chat Completions: content chunks, tool calls by index, finish, usage, [DONE]."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _event(
            None,
            {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [choice],
            },
        )

    out = [chunk({"role": "assistant", "content": ""})]
    for piece in _pieces(turn.text) if turn.text else []:
        out.append(chunk({"content": piece}))
    for index, (call_id, name, arguments) in enumerate(turn.calls):
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        out.append(chunk({"tool_calls": [first]}))
        for piece in _pieces(json.dumps(arguments)):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    out.append(chunk({}, "tool_calls" if turn.calls else "stop"))
    cached = prompt_tokens // 2
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 20,
        "total_tokens": prompt_tokens + 20,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    out.append(
        _event(
            None,
            {
                "id": "chatcmpl-s",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [],
                "usage": usage,
            },
        )
    )
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()
