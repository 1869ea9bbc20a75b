"""Each adapter asks the provider's cache diagnostics and reads the report, through the real
SDKs against the local server answering in each provider's documented shape."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pifold_agent.cache_report.records import REPLY_ID_KEY, REPORT_KEY, read_report
from pifold_agent.providers.anthropic_messages import AnthropicMessages
from pifold_agent.providers.base import ProviderRequest, ReplyWarning, StreamDone
from pifold_agent.providers.cache_requests import official_endpoint, openai_cache_controls
from pifold_agent.providers.openai_responses import OpenAIResponses
from tests.agent.providers.local_server import Reply, collect, done_of, serve
from tests.agent.providers.projection import SYSTEM, TOOLS
from tests.agent.providers.scripted_sse import ABSENT, Turn, anthropic_turn, responses_turn

MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "What is in main.py?"}]},
]
REQUEST = ProviderRequest(SYSTEM, MESSAGES, TOOLS, settled_messages=1)
ANSWER = Turn("It defines main().")


def anthropic_reply(diagnostics: Any, message_id: str = "msg_0002", cached: int = 0) -> Reply:
    return Reply(
        body=anthropic_turn(ANSWER, 400, "claude-sonnet-4-5", message_id, diagnostics, cached)
    )


def responses_reply(diagnostics: Any, number: int = 2, cached: int = 0) -> Reply:
    return Reply(body=responses_turn(ANSWER, 400, "gpt-5.6", number, diagnostics, cached))


async def anthropic_exchange(
    reply: Reply, baseline: str | None, asked: bool = True
) -> tuple[dict[str, Any], list[Any], StreamDone]:
    with serve([reply]) as server:
        adapter = AnthropicMessages(
            "claude-sonnet-4-5", "test-key", server.base_url, cache_diagnostics=asked
        )
        events = await collect(adapter, replace(REQUEST, cache_baseline=baseline))
    return server.requests[0].body, events, done_of(events)


async def test_anthropic_asks_against_the_previous_reply_and_keeps_the_miss() -> None:
    diagnostics = {
        "cache_miss_reason": {"type": "messages_changed", "cache_missed_input_tokens": 321}
    }
    body, _, done = await anthropic_exchange(anthropic_reply(diagnostics), "msg_0001")
    assert body["diagnostics"] == {"previous_message_id": "msg_0001"}
    assert done.extra[REPLY_ID_KEY] == "msg_0002"
    report = read_report(done.extra[REPORT_KEY])
    assert report is not None
    assert (report.kind, report.reason, report.missed_tokens) == ("miss", "messages_changed", 321)


async def test_anthropic_opts_in_on_a_first_request_with_a_null_id() -> None:
    body, _, done = await anthropic_exchange(anthropic_reply(None), None)
    assert body["diagnostics"] == {"previous_message_id": None}
    report = read_report(done.extra[REPORT_KEY])
    assert report is not None and report.kind == "not_compared"


async def test_anthropic_without_diagnostics_sends_and_keeps_none() -> None:
    body, _, done = await anthropic_exchange(anthropic_reply(ABSENT), "msg_0001", asked=False)
    assert "diagnostics" not in body
    assert REPORT_KEY not in done.extra and done.extra[REPLY_ID_KEY] == "msg_0002"


@pytest.mark.parametrize(
    "diagnostics",
    [
        {"cache_miss_reason": {"type": "messages_changed", "cache_missed_input_tokens": "lots"}},
        {"cache_miss_reason": {"type": ["tools_changed"]}},
    ],
)
async def test_anthropic_malformed_diagnostics_read_as_unknown_with_a_warning(
    diagnostics: Any,
) -> None:
    _, events, done = await anthropic_exchange(anthropic_reply(diagnostics), "msg_0001")
    assert done.stop_reason == "stop" and done.error is None
    report = read_report(done.extra[REPORT_KEY])
    assert report is not None and report.kind == "unknown"
    warnings = [event.message for event in events if isinstance(event, ReplyWarning)]
    assert any("cache diagnostics were not in their documented shape" in text for text in warnings)


async def responses_exchange(
    reply: Reply, baseline: str | None, model: str = "gpt-5.6", controls: bool | None = True
) -> tuple[dict[str, Any], list[Any], StreamDone]:
    with serve([reply]) as server:
        adapter = OpenAIResponses(
            model, "test-key", f"{server.base_url}/v1", cache_controls=controls
        )
        events = await collect(adapter, replace(REQUEST, cache_baseline=baseline))
    return server.requests[0].body, events, done_of(events)


async def test_responses_compare_with_the_previous_response_and_place_breakpoints() -> None:
    diagnostics = {
        "type": "cache_miss",
        "reason": "input_changed",
        "cache_missed_tokens": 250,
        "comparison_reusable_tokens": 300,
    }
    body, _, done = await responses_exchange(responses_reply(diagnostics), "resp_1")
    assert body["prompt_cache_options"] == {"comparison_response_id": "resp_1"}
    explicit = {"mode": "explicit"}
    system, user = body["input"]
    assert system["content"][0]["prompt_cache_breakpoint"] == explicit
    assert user["content"][-1]["prompt_cache_breakpoint"] == explicit
    assert done.extra[REPLY_ID_KEY] == "resp_2"
    report = read_report(done.extra[REPORT_KEY])
    assert report is not None
    assert (report.kind, report.reason, report.missed_tokens, report.reusable_tokens) == (
        "miss",
        "input_changed",
        250,
        300,
    )


async def test_responses_first_request_asks_no_comparison_but_places_breakpoints() -> None:
    body, _, done = await responses_exchange(responses_reply(ABSENT), None)
    assert "prompt_cache_options" not in body
    assert "prompt_cache_breakpoint" in body["input"][0]["content"][0]
    report = read_report(done.extra[REPORT_KEY])
    assert report is not None and report.kind == "not_compared"


async def test_responses_for_an_older_model_send_neither() -> None:
    body, _, done = await responses_exchange(
        responses_reply(ABSENT), "resp_1", model="gpt-5.4", controls=None
    )
    assert "prompt_cache_options" not in body and "prompt_cache_breakpoint" not in str(body)
    assert REPORT_KEY not in done.extra


@pytest.mark.parametrize(
    "diagnostics",
    [{"type": "cache_partial"}, {"type": "cache_miss", "reason": 3}],
)
async def test_responses_malformed_diagnostics_read_as_unknown(diagnostics: Any) -> None:
    _, events, done = await responses_exchange(responses_reply(diagnostics), "resp_1")
    assert done.stop_reason == "stop"
    report = read_report(done.extra[REPORT_KEY])
    assert report is not None and report.kind == "unknown"
    assert any(isinstance(event, ReplyWarning) for event in events)


def test_which_requests_carry_cache_controls() -> None:
    assert official_endpoint(None, "api.openai.com")
    assert official_endpoint("https://api.openai.com/v1", "api.openai.com")
    assert not official_endpoint("http://127.0.0.1:8080/v1", "api.openai.com")
    for model in ("gpt-5.6", "gpt-5.6-mini", "gpt-5.10", "gpt-6", "openai/gpt-5.7-2026-10-01"):
        assert openai_cache_controls(model), model
    for model in ("gpt-5", "gpt-5.5", "gpt-4.1", "gpt-4o", "o3", "qwen3-coder"):
        assert not openai_cache_controls(model), model
    assert OpenAIResponses("gpt-5.6", "key").cache_controls
    # Behind a gateway the model's name says whose it is: OpenAI's and Claude models are
    # asked, a local model served in either shape is not.
    assert OpenAIResponses("gpt-5.6", "key", "http://127.0.0.1:1/v1").cache_controls
    assert not OpenAIResponses("qwen3-coder", "key", "http://127.0.0.1:1/v1").cache_controls
    assert not OpenAIResponses("gpt-5.5", "key").cache_controls
    assert AnthropicMessages("claude-sonnet-4-5", "key").cache_diagnostics
    assert AnthropicMessages("claude-sonnet-4-5", "key", "http://127.0.0.1:1").cache_diagnostics
    assert not AnthropicMessages("qwen3-coder", "key", "http://127.0.0.1:1").cache_diagnostics
