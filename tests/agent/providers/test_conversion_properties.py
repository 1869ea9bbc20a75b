"""Invariants of the three conversions over random sessions (hypothesis).

Whatever the session, every call keeps its result and in order, Anthropic's breakpoints
never exceed the limit nor land on thinking, and an entry restored from its record (as a
restart restores it) converts to the same bytes, so a restart never costs the cache.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.providers import anthropic_messages, openai_chat, openai_responses
from pifold_agent.providers.assembly import normalise_call_id
from pifold_agent.providers.base import ProviderRequest
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from tests.core.builders import random_session


def session_messages(seed: int) -> list[dict[str, JsonValue]]:
    entries = random_session(seed, segments=3, max_batches=3, max_size=300)
    return [entry.wire for entry in entries]


def restored(messages: list[dict[str, JsonValue]], seed: int) -> list[dict[str, JsonValue]]:
    """The same session as a restart rebuilds it: every entry through its JSON record."""
    entries = random_session(seed, segments=3, max_batches=3, max_size=300)
    return [
        Entry.from_record(json.loads(json.dumps(entry.to_record(), sort_keys=True))).wire
        for entry in entries
    ]


def tool_call_ids(messages: list[dict[str, JsonValue]]) -> list[str]:
    return [str(message["call_id"]) for message in messages if message["role"] == "tool"]


def wire_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 200))
def test_anthropic_pairs_and_breakpoints(seed: int, settled: int) -> None:
    messages = session_messages(seed)
    converted = anthropic_messages.convert_messages(messages)
    places = anthropic_messages.place_breakpoints(converted, settled)
    assert 1 <= len(places) <= 2 and len(set(places)) == len(places)
    for message_index, block_index in places:
        block = converted.messages[message_index]["content"][block_index]
        assert block["type"] not in ("thinking", "redacted_thinking")
    assert places[-1] == converted.positions[-1][-1]
    results = [
        block["tool_use_id"]
        for message in converted.messages
        for block in message["content"]
        if block["type"] == "tool_result"
    ]
    assert results == [normalise_call_id(call_id) for call_id in tool_call_ids(messages)]
    seen: set[str] = set()
    for message in converted.messages:
        for block in message["content"]:
            if block["type"] == "tool_use":
                seen.add(block["id"])
            elif block["type"] == "tool_result":
                assert block["tool_use_id"] in seen
    assert all(message["content"] for message in converted.messages)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_openai_calls_answered_in_order(seed: int) -> None:
    messages = session_messages(seed)
    items = openai_responses.convert_input(messages)
    calls = [item["call_id"] for item in items if item.get("type") == "function_call"]
    outputs = [item["call_id"] for item in items if item.get("type") == "function_call_output"]
    assert outputs == [normalise_call_id(call_id) for call_id in tool_call_ids(messages)]
    assert set(outputs) <= set(calls)
    chat = openai_chat.convert_messages("sys", messages, developer=False)
    asked = [call["id"] for message in chat for call in message.get("tool_calls", [])]
    answered = [message["tool_call_id"] for message in chat if message["role"] == "tool"]
    assert answered == outputs and set(answered) <= set(asked)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 200))
def test_a_restored_session_sends_the_same_bytes(seed: int, settled: int) -> None:
    live = session_messages(seed)
    again = restored(live, seed)
    live_request = ProviderRequest("sys", live, (), settled, "s", 100)
    again_request = ProviderRequest("sys", again, (), settled, "s", 100)
    assert wire_text(anthropic_messages.build_body(live_request, "m", 100)) == wire_text(
        anthropic_messages.build_body(again_request, "m", 100)
    )
    assert wire_text(openai_responses.build_body(live_request, "gpt-5", True)) == wire_text(
        openai_responses.build_body(again_request, "gpt-5", True)
    )
    assert wire_text(openai_chat.build_body(live_request, "m", False)) == wire_text(
        openai_chat.build_body(again_request, "m", False)
    )
