"""The OpenAI Responses adapter through the real ``openai`` SDK against a local server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.providers.base import (
    ErrorClass,
    ProviderRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    UsageUpdate,
)
from pifold_agent.providers.errors import STREAM_CUT_MESSAGE
from pifold_agent.providers.openai_responses import OpenAIResponses, convert_input
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


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltProjection:
    return build_projection(Path(tmp_path_factory.mktemp("responses")))


def provider(base_url: str, model: str = "gpt-5.4") -> OpenAIResponses:
    return OpenAIResponses(model, "test-key", f"{base_url}/v1")


EMPTY = ProviderRequest(system="s", messages=[], tools=())


async def test_request_body_is_the_projection_converted(built: BuiltProjection) -> None:
    with serve([sse_reply("responses_reasoning_tool.sse")]) as server:
        await collect(provider(server.base_url), built.request)
    (sent,) = server.requests
    assert sent.path == "/v1/responses"
    body = sent.body
    assert body["store"] is False
    assert body["stream"] is True
    assert body["prompt_cache_key"] == "session-7f3a"
    assert body["max_output_tokens"] == 4096
    assert body["include"] == ["reasoning.encrypted_content"]
    assert [tool["name"] for tool in body["tools"]] == ["read", "bash"]
    assert body["tools"][0]["type"] == "function"
    # A reasoning model takes the system prompt as developer, first.
    assert body["input"][0] == {"role": "developer", "content": SYSTEM}
    assert body["input"][1:] == convert_input(built.messages)

    items = body["input"][1:]
    calls = [item for item in items if item.get("type") == "function_call"]
    outputs = [item for item in items if item.get("type") == "function_call_output"]
    assert [item["call_id"] for item in calls] == [item["call_id"] for item in outputs]
    odd = next(item for item in calls if item["name"] == "bash")
    # Sorted keys, compact JSON; the odd id normalised the same way on call and output.
    assert odd == {
        "type": "function_call",
        "call_id": "call_with_odd_chars",
        "name": "bash",
        "arguments": '{"command":"pytest -q","timeout":30}',
    }
    assert next(item for item in outputs if item["call_id"] == "call_with_odd_chars")["output"] == (
        "ImportError: cannot import name 'App'"
    )
    # Thinking from another provider (a plain signature) cannot be replayed: it is left out.
    assert not any(item.get("type") == "reasoning" for item in items)
    image_turn = next(
        item for item in items if item.get("role") == "user" and len(item["content"]) == 2
    )
    assert image_turn["content"][1] == {
        "type": "input_image",
        "image_url": "data:image/png;base64,iVBORw0KGgo=",
        "detail": "auto",
    }


async def test_non_reasoning_model_gets_a_system_message() -> None:
    request = ProviderRequest(system="be brief", messages=[], tools=(), session_id=None)
    with serve([sse_reply("responses_incomplete.sse")]) as server:
        await collect(provider(server.base_url, "gpt-4.1"), request)
    body = server.requests[0].body
    assert body["input"] == [{"role": "system", "content": "be brief"}]
    assert "prompt_cache_key" not in body and "include" not in body
    assert body["store"] is False


async def test_stream_parsed_and_reasoning_replayed_verbatim() -> None:
    with serve([sse_reply("responses_reasoning_tool.sse")]) as server:
        events = await collect(provider(server.base_url), EMPTY)
    deltas = [event for event in events if not isinstance(event, UsageUpdate)][:-1]
    assert deltas == [
        ThinkingDelta(0, "**Checking the failing test**"),
        ThinkingDelta(0, "\n\n"),
        ThinkingDelta(0, "Run pytest on it."),
        TextDelta(1, "Running the "),
        TextDelta(1, "test."),
        ToolCallDelta(2, "call_Qy7sA1|fc_68a1f", "bash", '{"command":'),
        ToolCallDelta(2, "call_Qy7sA1|fc_68a1f", "bash", '"pytest -q tests/test_app.py"}'),
    ]
    done = done_of(events)
    assert done.stop_reason == "tool_use"
    assert done.model == "gpt-5.4-2026-03-05"
    thinking, text, call = done.content
    assert isinstance(thinking, ThinkingBlock) and thinking.signature is not None
    assert thinking.text == "**Checking the failing test**\n\nRun pytest on it."
    stored = json.loads(thinking.signature)
    assert stored == {
        "pifold_next_message_id": "msg_68a1m",
        "id": "rs_68a1r",
        "type": "reasoning",
        "encrypted_content": "gAAAAABo-ENCRYPTED-REASONING==",
        "summary": [
            {"type": "summary_text", "text": "**Checking the failing test**"},
            {"type": "summary_text", "text": "Run pytest on it."},
        ],
    }
    assert text == TextBlock("Running the test.")
    assert call == ToolCallBlock(
        "call_Qy7sA1|fc_68a1f", "bash", {"command": "pytest -q tests/test_app.py"}
    )
    # Hand-computed: 12,000 input of which 10,240 cached; 420 output already holds the 300
    # reasoning tokens, so nothing is added.
    assert done.usage == Usage(
        input_tokens=1760, output_tokens=420, cache_read_tokens=10240, cache_write_tokens=0
    )

    # Sent back, the assistant message replays the reasoning item, the message that followed
    # it and the call, each by its id (the pairing key is kept out of what is sent).
    replay = convert_input(
        [
            {"role": "assistant", "content": [block.to_record() for block in done.content]},
            {
                "role": "tool",
                "call_id": call.id,
                "name": "bash",
                "is_error": False,
                "content": [{"type": "text", "text": "1 passed"}],
            },
        ]
    )
    del stored["pifold_next_message_id"]
    assert replay == [
        stored,
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_68a1m",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Running the test.", "annotations": []}],
        },
        {
            "type": "function_call",
            "call_id": "call_Qy7sA1",
            "name": "bash",
            "arguments": '{"command":"pytest -q tests/test_app.py"}',
            "id": "fc_68a1f",
        },
        {"type": "function_call_output", "call_id": "call_Qy7sA1", "output": "1 passed"},
    ]


async def test_incomplete_response_stops_for_length() -> None:
    with serve([sse_reply("responses_incomplete.sse")]) as server:
        events = await collect(provider(server.base_url, "gpt-4.1"), EMPTY)
    done = done_of(events)
    assert done.stop_reason == "length"
    assert done.content == (TextBlock("The diff is long; the first"),)
    assert done.usage == Usage(input_tokens=3000, output_tokens=64)


async def test_cache_writes_reported_by_the_server_stay_disjoint() -> None:
    body = recording("responses_reasoning_tool.sse").replace(
        b'"cache_write_tokens":0', b'"cache_write_tokens":1200'
    )
    with serve([Reply(body=body)]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.usage == Usage(
        input_tokens=12000 - 10240 - 1200,
        output_tokens=420,
        cache_read_tokens=10240,
        cache_write_tokens=1200,
    )


async def test_failed_response_for_length_is_context_too_long() -> None:
    with serve([sse_reply("responses_failed_overflow.sse")]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.stop_reason == "error"
    assert done.error is not None and done.error.kind is ErrorClass.CONTEXT_TOO_LONG
    assert done.error.message.startswith("Your input exceeds the context window")


@pytest.mark.parametrize(
    ("reply", "kind", "retry_after"),
    [
        (
            json_reply(
                400,
                {
                    "error": {
                        "message": "This model's maximum context length is 272000 tokens.",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            ),
            ErrorClass.CONTEXT_TOO_LONG,
            None,
        ),
        (
            json_reply(
                429,
                {"error": {"message": "Rate limit reached", "type": "requests", "code": None}},
                {"retry-after-ms": "1500"},
            ),
            ErrorClass.TRANSIENT,
            1.5,
        ),
        (
            json_reply(500, {"error": {"message": "server had an error"}}),
            ErrorClass.TRANSIENT,
            None,
        ),
        (
            json_reply(
                401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}
            ),
            ErrorClass.FATAL,
            None,
        ),
        (
            json_reply(403, {"error": {"message": "Project does not have access to model"}}),
            ErrorClass.FATAL,
            None,
        ),
    ],
)
async def test_each_error_class(reply: Reply, kind: ErrorClass, retry_after: float | None) -> None:
    with serve([reply, sse_reply("responses_incomplete.sse")]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None
    assert (done.error.kind, done.error.status, done.error.retry_after_s) == (
        kind,
        reply.status,
        retry_after,
    )
    assert done.error.message == json.loads(reply.body)["error"]["message"]
    assert len(server.requests) == 1


async def test_connection_dropped_mid_stream_is_transient() -> None:
    cut = recording("responses_reasoning_tool.sse").index(b"event: response.output_item.added")
    cut = recording("responses_reasoning_tool.sse").index(b"event: response.function_call", cut)
    with serve([sse_reply("responses_reasoning_tool.sse", drop_after=cut)]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None and done.error.kind is ErrorClass.TRANSIENT
    assert done.content[1] == TextBlock("Running the test.")


async def test_stream_without_completion_is_transient() -> None:
    body = recording("responses_incomplete.sse")
    with serve([Reply(body=body[: body.index(b"event: response.incomplete")])]) as server:
        done = done_of(await collect(provider(server.base_url), EMPTY))
    assert done.error is not None
    assert (done.error.kind, done.error.message) == (ErrorClass.TRANSIENT, STREAM_CUT_MESSAGE)
