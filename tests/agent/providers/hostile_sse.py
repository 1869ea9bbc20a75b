"""A :class:`~tests.agent.providers.hostile_replies.ReplySpec` written in each provider's
streaming format, mutations applied, as a :class:`~tests.agent.providers.local_server.Reply`.

Events are built as ``(event name, data)`` pairs in the documented order, then the spec's
mutation reorders, repeats, drops or replaces them (or cuts the bytes), and each is written
as SSE with Python's ``json.dumps`` (``NaN`` literals and ``\\uXXXX`` escapes of lone
surrogates included, as a careless server writes them). Data that cannot be written as JSON
at all (nesting past the encoder's limit) is written as deep brackets by hand.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.agent.providers.hostile_replies import ABSENT, ReplySpec
from tests.agent.providers.local_server import Reply, json_reply
from tests.fault.hostile_values import mutate_record

Event = tuple[str | None, Any]

NATURAL_STOP = {
    "anthropic": ("end_turn", "tool_use"),
    "openai-chat": ("stop", "tool_calls"),
}


def _figure(usage: Any, key: str, default: Any = ABSENT) -> Any:
    return usage.get(key, default) if isinstance(usage, dict) else default


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    if value is not ABSENT:
        target[key] = value


def _stop(spec: ReplySpec, provider: str) -> Any:
    if spec.stop is not ABSENT:
        return spec.stop
    plain, tools = NATURAL_STOP[provider]
    return tools if spec.calls else plain


def anthropic_events(spec: ReplySpec) -> list[Event]:
    """message_start, the blocks, message_delta, message_stop."""
    start_usage: dict[str, Any] = {"output_tokens": 1}
    if isinstance(spec.usage, dict):
        _put(start_usage, "input_tokens", _figure(spec.usage, "prompt"))
        _put(start_usage, "cache_read_input_tokens", _figure(spec.usage, "cached"))
    message: dict[str, Any] = {"id": spec.message_id, "type": "message", "role": "assistant"}
    message.update({"model": spec.model, "content": []})
    if spec.usage is not ABSENT:
        message["usage"] = start_usage if isinstance(spec.usage, dict) else spec.usage
    events: list[Event] = [("message_start", {"type": "message_start", "message": message})]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if spec.reasoning:
        deltas = [{"type": "thinking_delta", "thinking": piece} for piece in spec.reasoning]
        block(
            {"type": "thinking", "thinking": ""},
            [*deltas, {"type": "signature_delta", "signature": "sig"}],
        )
    if spec.text:
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": piece} for piece in spec.text],
        )
    for call in spec.calls:
        block(
            {"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}},
            [{"type": "input_json_delta", "partial_json": piece} for piece in call.pieces],
        )
    delta_usage: dict[str, Any] = {}
    _put(delta_usage, "output_tokens", _figure(spec.usage, "output"))
    stop = {"stop_reason": _stop(spec, "anthropic")}
    delta: dict[str, Any] = {"type": "message_delta", "delta": stop}
    if spec.usage is not ABSENT:
        delta["usage"] = delta_usage if isinstance(spec.usage, dict) else spec.usage
    events.append(("message_delta", delta))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def responses_events(spec: ReplySpec) -> list[Event]:
    """response.created, output items with their deltas, then the ending event."""
    response = {
        "id": "resp_h",
        "object": "response",
        "status": "in_progress",
        "model": spec.model,
        "output": [],
    }
    events: list[Event] = [("response.created", {"type": "response.created", "response": response})]

    def add(name: str, **data: Any) -> None:
        events.append((name, {"type": name, **data}))

    output = 0
    if spec.reasoning:
        add(
            "response.output_item.added",
            output_index=output,
            item={"id": "rs_h", "type": "reasoning", "summary": []},
        )
        for piece in spec.reasoning:
            add(
                "response.reasoning_summary_text.delta",
                item_id="rs_h",
                output_index=output,
                summary_index=0,
                delta=piece,
            )
        summary = [{"type": "summary_text", "text": "".join(map(str, spec.reasoning))}]
        add(
            "response.output_item.done",
            output_index=output,
            item={
                "id": "rs_h",
                "type": "reasoning",
                "summary": summary,
                "encrypted_content": "enc",
            },
        )
        output += 1
    if spec.text:
        item = {"id": spec.message_id, "type": "message", "role": "assistant", "content": []}
        add("response.output_item.added", output_index=output, item=item)
        for piece in spec.text:
            add(
                "response.output_text.delta",
                item_id=spec.message_id,
                output_index=output,
                content_index=0,
                delta=piece,
            )
        add("response.output_item.done", output_index=output, item={**item, "status": "completed"})
        output += 1
    for number, call in enumerate(spec.calls):
        item_id = f"fc_h{number}"
        add(
            "response.output_item.added",
            output_index=output,
            item={
                "id": item_id,
                "type": "function_call",
                "call_id": call.call_id,
                "name": call.name,
                "arguments": "",
            },
        )
        for piece in call.pieces:
            add(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=output,
                delta=piece,
            )
        whole = "".join(piece for piece in call.pieces if isinstance(piece, str))
        add(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=output,
            arguments=whole,
        )
        output += 1
    done: dict[str, Any] = {**response, "status": "completed"}
    if isinstance(spec.usage, dict):
        usage: dict[str, Any] = {}
        _put(usage, "input_tokens", _figure(spec.usage, "prompt"))
        _put(usage, "output_tokens", _figure(spec.usage, "output"))
        details: dict[str, Any] = {}
        _put(details, "cached_tokens", _figure(spec.usage, "cached"))
        usage["input_tokens_details"] = details
        done["usage"] = usage
    elif spec.usage is not ABSENT:
        done["usage"] = spec.usage
    ending = "response.completed"
    if spec.stop is not ABSENT:
        ending = {"length": "response.incomplete", "content_filter": "response.failed"}.get(
            spec.stop if isinstance(spec.stop, str) else "", "response.completed"
        )
        if ending == "response.failed":
            done["error"] = {"message": spec.stop, "code": spec.stop}
    add(ending, response=done)
    return events


def chat_events(spec: ReplySpec) -> list[Event]:
    """Content chunks, tool calls by index, the finish chunk, the usage chunk, [DONE]."""

    def chunk(delta: dict[str, Any], finish: Any = None, **extra: Any) -> Event:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return (
            None,
            {
                "id": spec.message_id,
                "object": "chat.completion.chunk",
                "model": spec.model,
                "choices": [choice],
                **extra,
            },
        )

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"reasoning_content": piece}) for piece in spec.reasoning]
    events += [chunk({"content": piece}) for piece in spec.text]
    for index, call in enumerate(spec.calls):
        first = {
            "index": index,
            "id": call.call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [first]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in call.pieces
        ]
    events.append(chunk({}, _stop(spec, "openai-chat")))
    if spec.usage is not ABSENT:
        usage: Any = spec.usage
        if isinstance(spec.usage, dict):
            usage = {}
            _put(usage, "prompt_tokens", _figure(spec.usage, "prompt"))
            _put(usage, "completion_tokens", _figure(spec.usage, "output"))
            details: dict[str, Any] = {}
            _put(details, "cached_tokens", _figure(spec.usage, "cached"))
            usage["prompt_tokens_details"] = details
        events.append(
            (
                None,
                {
                    "id": spec.message_id,
                    "object": "chat.completion.chunk",
                    "model": spec.model,
                    "choices": [],
                    "usage": usage,
                },
            )
        )
    events.append((None, "[DONE]"))
    return events


EVENTS = {"anthropic": anthropic_events, "openai": responses_events, "openai-chat": chat_events}


def _mutated(events: list[Event], spec: ReplySpec, rng: random.Random) -> list[Event]:
    kind, at = spec.mutation.kind, min(int(spec.mutation.position * len(events)), len(events) - 1)
    if kind == "no_end":  # the last one or two events (as the position says) never come
        return events[: max(1, len(events) - 1 - int(spec.mutation.position * 2))]
    if kind == "swap" and len(events) > 2:
        at = min(at, len(events) - 2)
        events[at], events[at + 1] = events[at + 1], events[at]
    elif kind == "duplicate":
        events.insert(at, events[at])
    elif kind == "drop":
        del events[at]
    elif kind == "garbage":
        events.insert(at, (events[at][0], {"__raw__": rng.choice(["{not json", "[1,", "\x00"])}))
    elif kind == "unknown_event":
        events.insert(at, (events[at][0] or "weird", {"type": "weird.event", "index": "x"}))
    elif kind == "field" and isinstance(events[at][1], dict):
        events[at] = (events[at][0], mutate_record(events[at][1], rng))
    return events


def sse(name: str | None, data: Any) -> str:
    """One event as SSE text (see the module docstring)."""
    head = f"event: {name}\n" if name else ""
    if data == "[DONE]":
        return "data: [DONE]\n\n"
    if isinstance(data, dict) and "__raw__" in data:
        return f"{head}data: {data['__raw__']}\n\n"
    try:
        text = json.dumps(data)
    except (RecursionError, ValueError):
        text = '{"type":"deep","v":' + "[" * 5_000 + "]" * 5_000 + "}"
    return f"{head}data: {text}\n\n"


def render(provider: str, spec: ReplySpec, rng: random.Random) -> Reply:
    """The reply the local server plays for ``spec`` in ``provider``'s format."""
    if spec.mutation.kind == "http_error":
        return rng.choice(
            [
                json_reply(500, {"error": {"message": "server fell over"}}),
                json_reply(429, {"error": {"message": "slow down"}}, {"retry-after": "9999"}),
                json_reply(400, {"error": {"message": "prompt is too long: 9 > 8 maximum"}}),
                json_reply(401, {"error": {"message": "bad key", "type": "auth"}}),
                json_reply(200, [1, 2, 3]),
                json_reply(400, {"error": {"message": "bad \ud800 request", "type": 5}}),
                json_reply(500, {"error": {"message": ["not", "text"]}}),
                json_reply(503, {"error": "x" * 100_000}, {"retry-after": "NaN"}),
                json_reply(429, {"error": {"message": "wait"}}, {"retry-after-ms": "-1e309"}),
                Reply(body=b"", status=200),
            ]
        )
    events = _mutated(EVENTS[provider](spec), spec, rng)
    body = "".join(sse(name, data) for name, data in events).encode("utf-8", "surrogatepass")
    if spec.mutation.kind == "truncate":
        return Reply(body=body, drop_after=int(spec.mutation.position * len(body)))
    return Reply(body=body)


__all__ = ["EVENTS", "anthropic_events", "chat_events", "render", "responses_events", "sse"]
