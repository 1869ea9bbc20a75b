"""The Anthropic adapter through the real ``anthropic`` SDK against a local server."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from pifold_agent.providers.anthropic_messages import (
    REDACTED_PREFIX,
    AnthropicMessages,
    convert_messages,
    place_breakpoints,
)
from pifold_agent.providers.base import (
    ErrorClass,
    ProviderRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageUpdate,
)
from pifold_agent.providers.errors import STREAM_CUT_MESSAGE
from pifold_core.entries import TextBlock, ThinkingBlock, ToolCallBlock, Usage
from tests.agent.providers.local_server import (
    Reply,
    collect,
    done_of,
    json_reply,
    recording,
    serve,
    sse_reply,
)
from tests.agent.providers.projection import SYSTEM, BuiltProjection, build_projection

EPHEMERAL = {"type": "ephemeral"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltProjection:
    return build_projection(Path(tmp_path_factory.mktemp("anthropic")))


def provider(base_url: str) -> AnthropicMessages:
    return AnthropicMessages("claude-sonnet-4-5", "test-key", base_url)


def breakpoints(body: dict[str, Any]) -> list[tuple[int, int]]:
    """Where ``cache_control`` sits among the messages: (message, block)."""
    return [
        (message_index, block_index)
        for message_index, message in enumerate(body["messages"])
        for block_index, block in enumerate(message["content"])
        if "cache_control" in block
    ]


def without_breakpoints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    stripped = copy.deepcopy(messages)
    for message in stripped:
        for block in message["content"]:
            block.pop("cache_control", None)
    return stripped


async def test_request_body_is_the_projection_converted(built: BuiltProjection) -> None:
    with serve([sse_reply("anthropic_tool_use.sse")]) as server:
        await collect(provider(server.base_url), built.request)
    (sent,) = server.requests
    assert sent.path == "/v1/messages"
    body = sent.body
    assert body["model"] == "claude-sonnet-4-5"
    assert body["max_tokens"] == 4096
    assert body["stream"] is True
    assert body["system"] == [{"type": "text", "text": SYSTEM, "cache_control": EPHEMERAL}]
    assert [tool["name"] for tool in body["tools"]] == ["read", "bash"]
    assert body["tools"][1]["input_schema"]["required"] == ["command"]
    # Exactly the engine's projection, converted: nothing added but the breakpoints.
    assert without_breakpoints(body["messages"]) == convert_messages(built.messages).messages

    messages = body["messages"]
    roles = [message["role"] for message in messages]
    assert roles.count("assistant") + roles.count("user") == len(messages)
    # Consecutive tool results became one user message of tool_result blocks, in order.
    merged = [
        message
        for message in messages
        if all(block["type"] == "tool_result" for block in message["content"])
    ]
    assert [len(message["content"]) for message in merged] == [2, 1, 1, 2]
    assert [block["tool_use_id"] for block in merged[0]["content"]] == ["call_e13", "call_e14"]
    special = next(
        message
        for message in messages
        if message["role"] == "assistant" and message["content"][0]["type"] == "thinking"
    )
    assert special["content"] == [
        {
            "type": "thinking",
            "thinking": "The screenshot shows an ImportError.",
            "signature": "sig-abc123",
        },
        {"type": "text", "text": "unsigned musing"},
        {"type": "text", "text": "Running the tests."},
        {
            "type": "tool_use",
            "id": "call_with_odd_chars",
            "name": "bash",
            "input": {"command": "pytest -q", "timeout": 30},
        },
    ]
    # Keys in sorted order on the wire, as a restored entry would have them.
    assert list(special["content"][3]["input"]) == ["command", "timeout"]
    assert merged[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "call_with_odd_chars",
            "content": [{"type": "text", "text": "ImportError: cannot import name 'App'"}],
            "is_error": True,
        }
    ]
    images = [
        block for message in messages for block in message["content"] if block["type"] == "image"
    ]
    assert images == [
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        }
    ]


async def test_breakpoints_at_the_settled_boundary_and_the_tail(built: BuiltProjection) -> None:
    converted = convert_messages(built.messages)
    positions = converted.positions
    tail = positions[-1][-1]
    # Engine message 6 is the first of two tool results merged into one user message:
    # the boundary after it is that message's first block, not its last.
    request = ProviderRequest(system=SYSTEM, messages=built.messages, tools=(), settled_messages=7)
    with serve([sse_reply("anthropic_text.sse")]) as server:
        await collect(provider(server.base_url), request)
    body = server.requests[0].body
    assert breakpoints(body) == [positions[6][-1], tail]
    assert positions[6][-1] == (positions[5][-1][0] + 1, 0)
    assert len(positions[7]) == 1 and positions[7][0] == (positions[6][-1][0], 1)
    assert body["system"][0]["cache_control"] == EPHEMERAL


@pytest.mark.parametrize("settled", [None, 0, 1, 5, 12, 13, 16, 17, 40])
def test_breakpoint_placement_for_every_boundary(
    built: BuiltProjection, settled: int | None
) -> None:
    converted = convert_messages(built.messages)
    places = place_breakpoints(converted, settled)
    tail = converted.positions[-1][-1]
    expected = []
    if settled:
        boundary = min(settled, len(built.messages))
        expected.append(next(p[-1] for p in reversed(converted.positions[:boundary]) if p))
    if tail not in expected:
        expected.append(tail)
    assert places == expected
    marked = breakpoints({"messages": converted.messages})
    assert marked == sorted(set(expected))
    assert 1 + len(marked) <= 4


def test_the_engine_boundary_is_used_and_never_a_thinking_block(built: BuiltProjection) -> None:
    assert built.request.settled_messages == built.engine.settled_boundary()
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "plan"},
                {"type": "thinking", "text": "hidden", "signature": "s1"},
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": ""}]},
        {"role": "user", "content": [{"type": "text", "text": "next"}]},
    ]
    converted = convert_messages(messages)
    # The empty user message is dropped; the assistant's boundary steps back over thinking.
    assert [message["role"] for message in converted.messages] == ["user", "assistant", "user"]
    assert place_breakpoints(converted, 3) == [(1, 0), (2, 0)]
    assert "cache_control" not in converted.messages[1]["content"][1]


def test_redacted_thinking_is_replayed_as_redacted() -> None:
    messages = [
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "text": "", "signature": REDACTED_PREFIX + "EmwKAhgB"},
                {"type": "text", "text": "Done."},
            ],
        }
    ]
    converted = convert_messages(messages)
    assert converted.messages[0]["content"] == [
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "text", "text": "Done."},
    ]
    assert converted.positions == [[(0, 1)]]


async def test_a_refused_connection_has_no_usage() -> None:
    with serve() as server:
        base_url = server.base_url
    # The server is gone: nothing listens on that port any more.
    done = done_of(await collect(provider(base_url), ProviderRequest("s", [], ())))
    assert (
        done.error is not None and done.error.kind is ErrorClass.FATAL
    )  # a stopped local server is not retried
    assert done.usage is None and done.content == ()


async def test_stream_parsed_into_events_and_the_message() -> None:
    request = ProviderRequest(system="", messages=[{"role": "user", "content": []}], tools=())
    with serve([sse_reply("anthropic_tool_use.sse")]) as server:
        events = await collect(provider(server.base_url), request)
    assert "system" not in server.requests[0].body
    deltas = [event for event in events if not isinstance(event, UsageUpdate)][:-1]
    assert deltas == [
        ThinkingDelta(0, "The test file fails on import; "),
        ThinkingDelta(0, "read it first."),
        TextDelta(1, "I'll read "),
        TextDelta(1, "tests/test_app.py."),
        ToolCallDelta(2, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read", ""),
        ToolCallDelta(2, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read", '{"path": "tests/te'),
        ToolCallDelta(2, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read", 'st_app.py", "limit": 200}'),
    ]
    done = done_of(events)
    assert done.content == (
        ThinkingBlock(
            "The test file fails on import; read it first.",
            "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
        ),
        TextBlock("I'll read tests/test_app.py."),
        ToolCallBlock(
            "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read", {"path": "tests/test_app.py", "limit": 200}
        ),
    )
    assert done.stop_reason == "tool_use"
    assert done.error is None
    assert done.model == "claude-sonnet-4-5"
    # Disjoint buckets: Anthropic's input_tokens already excludes cache reads and writes.
    assert done.usage == Usage(
        input_tokens=472, output_tokens=89, cache_read_tokens=20480, cache_write_tokens=1810
    )


async def test_usage_captured_at_message_start_and_updated_at_message_delta() -> None:
    request = ProviderRequest(system="s", messages=[], tools=())
    with serve([sse_reply("anthropic_text.sse")]) as server:
        events = await collect(provider(server.base_url), request)
    updates = [event.usage for event in events if isinstance(event, UsageUpdate)]
    assert updates == [
        Usage(input_tokens=25, output_tokens=1, cache_read_tokens=9000, cache_write_tokens=0),
        Usage(input_tokens=25, output_tokens=15, cache_read_tokens=9000, cache_write_tokens=310),
    ]
    done = done_of(events)
    assert done.stop_reason == "stop"
    assert done.content == (TextBlock("All tests pass now: 14 passed."),)
    assert done.usage is not None and done.usage.prompt_tokens == 25 + 9000 + 310


TOO_LONG = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 212004 tokens > 200000 maximum",
    },
}


@pytest.mark.parametrize(
    ("reply", "kind", "status", "retry_after"),
    [
        (json_reply(400, TOO_LONG), ErrorClass.CONTEXT_TOO_LONG, 400, None),
        (
            json_reply(
                413,
                {
                    "type": "error",
                    "error": {
                        "type": "request_too_large",
                        "message": "Request exceeds the maximum size",
                    },
                },
            ),
            ErrorClass.CONTEXT_TOO_LONG,
            413,
            None,
        ),
        (
            json_reply(
                429,
                {
                    "type": "error",
                    "error": {
                        "type": "rate_limit_error",
                        "message": "Request rate over your per-minute limit",
                    },
                },
                {"retry-after": "7"},
            ),
            ErrorClass.TRANSIENT,
            429,
            7.0,
        ),
        (
            json_reply(
                529,
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ),
            ErrorClass.TRANSIENT,
            529,
            None,
        ),
        (
            json_reply(
                503,
                {
                    "type": "error",
                    "error": {"type": "api_error", "message": "upstream unavailable"},
                },
            ),
            ErrorClass.TRANSIENT,
            503,
            None,
        ),
        (
            json_reply(
                401,
                {
                    "type": "error",
                    "error": {"type": "authentication_error", "message": "invalid x-api-key"},
                },
            ),
            ErrorClass.FATAL,
            401,
            None,
        ),
        (
            json_reply(
                400,
                {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "messages.1: tool_use ids must be unique",
                    },
                },
            ),
            ErrorClass.FATAL,
            400,
            None,
        ),
    ],
)
async def test_each_error_class(
    reply: Reply, kind: ErrorClass, status: int, retry_after: float | None
) -> None:
    request = ProviderRequest(system="s", messages=[], tools=())
    with serve([reply, sse_reply("anthropic_text.sse")]) as server:
        events = await collect(provider(server.base_url), request)
    done = done_of(events)
    assert done.stop_reason == "error"
    assert done.error is not None
    assert (done.error.kind, done.error.status, done.error.retry_after_s) == (
        kind,
        status,
        retry_after,
    )
    assert done.error.message == reply_message(reply)
    # The SDK did not retry behind the loop's back: one request, the second reply unused.
    assert len(server.requests) == 1


def reply_message(reply: Reply) -> str:
    return str(json.loads(reply.body)["error"]["message"])


async def test_connection_dropped_mid_stream_is_transient_and_keeps_the_partial() -> None:
    cut = recording("anthropic_tool_use.sse").index(b"event: content_block_stop")
    request = ProviderRequest(system="s", messages=[], tools=())
    with serve([sse_reply("anthropic_tool_use.sse", drop_after=cut)]) as server:
        events = await collect(provider(server.base_url), request)
    done = done_of(events)
    assert done.error is not None and done.error.kind is ErrorClass.TRANSIENT
    assert done.stop_reason == "error"
    assert done.content == (
        ThinkingBlock(
            "The test file fails on import; read it first.",
            "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
        ),
    )
    # Input counts from message_start survive the cut.
    assert done.usage is not None and done.usage.cache_read_tokens == 20480


async def test_error_event_inside_the_stream_is_transient() -> None:
    request = ProviderRequest(system="s", messages=[], tools=())
    with serve([sse_reply("anthropic_overloaded_midstream.sse")]) as server:
        events = await collect(provider(server.base_url), request)
    done = done_of(events)
    assert done.error is not None
    assert (done.error.kind, done.error.message) == (ErrorClass.TRANSIENT, "Overloaded")
    assert done.content == (TextBlock("Let me"),)


async def test_stream_closed_before_message_stop_is_transient() -> None:
    body = recording("anthropic_text.sse")
    complete = body[: body.index(b"event: message_stop")]
    request = ProviderRequest(system="s", messages=[], tools=())
    with serve([Reply(body=complete)]) as server:
        events = await collect(provider(server.base_url), request)
    done = done_of(events)
    assert done.error is not None
    assert (done.error.kind, done.error.message) == (ErrorClass.TRANSIENT, STREAM_CUT_MESSAGE)


async def test_cancellation_propagates() -> None:
    body = recording("anthropic_text.sse")
    reply = Reply(body=body, hold_after=body.index(b"event: content_block_delta"))
    request = ProviderRequest(system="s", messages=[], tools=())
    seen: list[object] = []
    first = asyncio.Event()

    async def consume() -> None:
        async for event in provider(server.base_url).stream(request):
            seen.append(event)
            first.set()

    with serve([reply]) as server:
        task = asyncio.create_task(consume())
        await first.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        reply.release.set()
    # Only the usage from message_start arrived; no StreamDone was made up.
    assert [type(event).__name__ for event in seen] == ["UsageUpdate"]
