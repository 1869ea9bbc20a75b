"""The Chat Completions adapter through the real ``openai`` SDK against a local server
standing in for a compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pifold_agent.providers.base import (
    ErrorClass,
    Provider,
    ProviderRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageUpdate,
)
from pifold_agent.providers.errors import STREAM_CUT_MESSAGE
from pifold_agent.providers.openai_chat import OpenAIChat, build_body, convert_messages
from pifold_agent.providers.openai_responses import OpenAIResponses
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

EMPTY = ProviderRequest(system="s", messages=[], tools=())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltProjection:
    return build_projection(Path(tmp_path_factory.mktemp("chat")))


def provider(base_url: str, model: str = "qwen3-coder:30b") -> OpenAIChat:
    return OpenAIChat(model, "not-needed", f"{base_url}/v1")


async def test_request_body_is_the_projection_converted(built: BuiltProjection) -> None:
    with serve([sse_reply("chat_tool_calls.sse")]) as server:
        await collect(provider(server.base_url), built.request)
    (sent,) = server.requests
    assert sent.path == "/v1/chat/completions"
    body = sent.body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    # A compatible server gets the old parameter name that every one of them knows.
    assert body["max_tokens"] == 4096 and "max_completion_tokens" not in body
    assert [tool["function"]["name"] for tool in body["tools"]] == ["read", "bash"]
    assert body["messages"][0] == {"role": "system", "content": SYSTEM}
    assert body["messages"] == convert_messages(SYSTEM, built.messages, developer=False)

    messages = body["messages"]
    special = next(
        message
        for message in messages
        if message.get("tool_calls") and message["tool_calls"][0]["function"]["name"] == "bash"
    )
    # Thinking is not sent back; empty text is dropped; arguments with sorted keys.
    assert special == {
        "role": "assistant",
        "content": "Running the tests.",
        "tool_calls": [
            {
                "id": "call_with_odd_chars",
                "type": "function",
                "function": {"name": "bash", "arguments": '{"command":"pytest -q","timeout":30}'},
            }
        ],
    }
    results = [message for message in messages if message["role"] == "tool"]
    assert len(results) == sum(len(message.get("tool_calls", [])) for message in messages)
    assert {
        "role": "tool",
        "tool_call_id": "call_with_odd_chars",
        "content": "ImportError: cannot import name 'App'",
    } in results
    image_turn = next(message for message in messages if isinstance(message["content"], list))
    assert image_turn["content"] == [
        {"type": "text", "text": "Here is the screenshot of the failure."},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]


async def test_openai_proper_uses_its_own_names() -> None:
    chat = OpenAIChat("gpt-5.4", "key", None)
    assert chat.openai_proper
    request = ProviderRequest(
        system="sys", messages=[], tools=(), session_id="s-1", max_output_tokens=100
    )
    body = build_body(request, "gpt-5.4", openai_proper=True)
    assert body["messages"] == [{"role": "developer", "content": "sys"}]
    assert body["max_completion_tokens"] == 100 and "max_tokens" not in body
    assert (body["store"], body["prompt_cache_key"]) == (False, "s-1")
    compatible = build_body(request, "gpt-5.4", openai_proper=False)
    assert "store" not in compatible and "prompt_cache_key" not in compatible


async def test_tool_calls_streamed_by_index_and_reasoning_read() -> None:
    with serve([sse_reply("chat_tool_calls.sse")]) as server:
        events = await collect(provider(server.base_url), EMPTY)
    deltas = [event for event in events if not isinstance(event, UsageUpdate)][:-1]
    assert deltas == [
        ThinkingDelta(0, "The user wants the file "),
        ThinkingDelta(0, "and its tests."),
        TextDelta(1, "Reading both."),
        ToolCallDelta(2, "call_a1", "read", '{"path":"src/app.py"}'),
        ToolCallDelta(3, "call_b2", "read", '{"path":'),
        ToolCallDelta(3, "call_b2", "read", '"tests/test_app.py","limit":50}'),
    ]
    done = done_of(events)
    assert done.stop_reason == "tool_use"
    assert done.model == "qwen3-coder:30b"
    assert done.content == (
        ThinkingBlock("The user wants the file and its tests."),
        TextBlock("Reading both."),
        ToolCallBlock("call_a1", "read", {"path": "src/app.py"}),
        ToolCallBlock("call_b2", "read", {"path": "tests/test_app.py", "limit": 50}),
    )
    # Hand-computed: 5,000 prompt of which 4,096 cached; 180 completion tokens already hold
    # the 120 reasoning tokens, which are not added again.
    assert done.usage == Usage(input_tokens=904, output_tokens=180, cache_read_tokens=4096)


async def test_text_answer_and_the_reasoning_field() -> None:
    with serve([sse_reply("chat_text.sse")]) as server:
        done = done_of(await collect(provider(server.base_url, "gpt-4.1"), EMPTY))
    assert done.stop_reason == "stop"
    assert done.content == (ThinkingBlock("Short answer. "), TextBlock("Fixed in src/app.py."))
    assert done.usage == Usage(input_tokens=800, output_tokens=9)


@pytest.mark.parametrize(
    ("reply", "kind", "retry_after"),
    [
        (
            json_reply(
                400,
                {
                    "error": {
                        "message": (
                            "request (9000 tokens) exceeds the available context size"
                            " (8192 tokens), try increasing it"
                        ),
                        "type": "exceed_context_size_error",
                    }
                },
            ),
            ErrorClass.CONTEXT_TOO_LONG,
            None,
        ),
        (
            json_reply(
                400,
                {
                    "error": {
                        "message": (
                            "This model's maximum context length is 32768 tokens."
                            " However, you requested 40000 tokens."
                        )
                    }
                },
            ),
            ErrorClass.CONTEXT_TOO_LONG,
            None,
        ),
        (
            json_reply(413, {"error": {"message": "payload too large"}}),
            ErrorClass.CONTEXT_TOO_LONG,
            None,
        ),
        (
            json_reply(
                429,
                {"error": {"message": "Rate limit exceeded: free-models-per-min"}},
                {"retry-after": "3"},
            ),
            ErrorClass.TRANSIENT,
            3.0,
        ),
        (json_reply(503, {"error": {"message": "model is loading"}}), ErrorClass.TRANSIENT, None),
        (
            json_reply(401, {"error": {"message": "No auth credentials found"}}),
            ErrorClass.FATAL,
            None,
        ),
    ],
)
async def test_each_error_class(reply: Reply, kind: ErrorClass, retry_after: float | None) -> None:
    with serve([reply, sse_reply("chat_text.sse")]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None
    assert (done.error.kind, done.error.status, done.error.retry_after_s) == (
        kind,
        reply.status,
        retry_after,
    )
    assert done.error.message == json.loads(reply.body)["error"]["message"]
    assert len(server.requests) == 1


async def test_error_chunk_inside_the_stream() -> None:
    body = (
        recording("chat_text.sse").split(b"\n\n")[0]
        + b'\n\ndata: {"error":{"message":"upstream overloaded","code":"server_error"}}\n\n'
    )
    with serve([Reply(body=body)]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None
    assert (done.error.kind, done.error.message) == (ErrorClass.TRANSIENT, "upstream overloaded")


async def test_connection_dropped_mid_stream_is_transient() -> None:
    body = recording("chat_tool_calls.sse")
    cut = body.index(b'"index":1,"id"')
    with serve([sse_reply("chat_tool_calls.sse", drop_after=cut)]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None and done.error.kind is ErrorClass.TRANSIENT
    assert done.content[-1] == ToolCallBlock("call_a1", "read", {"path": "src/app.py"})


async def test_stream_without_a_finish_reason_is_transient() -> None:
    body = recording("chat_text.sse")
    with serve([Reply(body=body[: body.index(b'"finish_reason":"stop"') - 200])]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None
    assert (done.error.kind, done.error.message) == (ErrorClass.TRANSIENT, STREAM_CUT_MESSAGE)


@pytest.mark.parametrize("api", ["chat", "responses"])
async def test_cancellation_propagates(api: str) -> None:
    name = "chat_text.sse" if api == "chat" else "responses_incomplete.sse"
    body = recording(name)
    marker = b'"content":"Fixed in "' if api == "chat" else b"event: response.incomplete"
    # Held at the start of that event: every event before it arrives whole.
    line = b"data: " if api == "chat" else b"event: "
    reply = Reply(body=body, hold_after=body.rindex(line, 0, body.index(marker) + len(line)))
    seen: list[object] = []
    first = asyncio.Event()

    async def consume(chosen: Provider) -> None:
        async for event in chosen.stream(EMPTY):
            seen.append(event)
            first.set()

    with serve([reply]) as server:
        chosen: Provider = (
            provider(server.base_url)
            if api == "chat"
            else OpenAIResponses("gpt-4.1", "key", f"{server.base_url}/v1")
        )
        task = asyncio.create_task(consume(chosen))
        await first.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        reply.release.set()
    # Exactly what streamed before the hold arrived; no final event was made up.
    expected = (
        [ThinkingDelta(0, "Short answer. ")]
        if api == "chat"
        else [TextDelta(0, "The diff is long; the first")]
    )
    assert seen == expected
