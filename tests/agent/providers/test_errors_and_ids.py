"""The error classifier, retry hints, call id normalisation and argument parsing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.providers.assembly import (
    CALL_ID_PATTERN,
    BlockAssembler,
    arguments_text,
    normalise_call_id,
    parse_arguments,
)
from pifold_agent.providers.base import ErrorClass
from pifold_agent.providers.errors import (
    classify_exception,
    classify_status,
    is_context_overflow,
    parse_retry_after,
)
from pifold_core.canonical import JsonValue
from pifold_core.entries import ToolCallBlock


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 212004 tokens > 200000 maximum",
        "Your input exceeds the context window of this model.",
        "This model's maximum context length is 128000 tokens.",
        "context_length_exceeded",
        "input is too long for requested model",
        "the request exceeds the available context size (8192 tokens)",
        "input length 9000 is greater than the context length 8192",
        "Please reduce the length of the messages or completion.",
        "too large for model with 32768 maximum context length",
    ],
)
def test_overflow_phrases(message: str) -> None:
    assert is_context_overflow(message)
    assert classify_status(400, message).kind is ErrorClass.CONTEXT_TOO_LONG


@pytest.mark.parametrize(
    ("status", "message", "error_type", "kind"),
    [
        (413, "Request Entity Too Large", None, ErrorClass.CONTEXT_TOO_LONG),
        (429, "slow down", None, ErrorClass.TRANSIENT),
        (529, "Overloaded", "overloaded_error", ErrorClass.TRANSIENT),
        (502, "bad gateway", None, ErrorClass.TRANSIENT),
        (599, "odd proxy status", None, ErrorClass.TRANSIENT),
        (401, "invalid x-api-key", "authentication_error", ErrorClass.FATAL),
        (403, "forbidden", None, ErrorClass.FATAL),
        (400, "tool_use ids must be unique", "invalid_request_error", ErrorClass.FATAL),
        (404, "model not found", None, ErrorClass.FATAL),
        (None, "Overloaded", "overloaded_error", ErrorClass.TRANSIENT),
        (200, "rate limited", "rate_limit_exceeded", ErrorClass.TRANSIENT),
        (None, "The response was blocked", "content_filter", ErrorClass.FATAL),
    ],
)
def test_status_classes(
    status: int | None, message: str, error_type: str | None, kind: ErrorClass
) -> None:
    error = classify_status(status, message, None, error_type)
    assert error.kind is kind
    assert error.message == message
    # A 200 is no error status: an in-stream failure carries none.
    assert error.status == (status if status is not None and status >= 400 else None)


def test_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "12"}) == 12.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert (
        parse_retry_after({"retry-after": "Wed, 02 Dec 2026 00:00:30 GMT"}, now=1796169600.0)
        == 30.0
    )
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    assert classify_status(429, "x", {"retry-after": "4"}).retry_after_s == 4.0


def test_exceptions_outside_the_sdks() -> None:
    assert classify_exception(ConnectionResetError("reset by peer")).kind is ErrorClass.TRANSIENT
    assert classify_exception(TimeoutError()).kind is ErrorClass.TRANSIENT
    failure = classify_exception(PermissionError("no"))
    assert failure.kind is ErrorClass.FATAL and "PermissionError" in failure.message


@given(st.text(max_size=200))
def test_normalised_ids_are_valid_and_deterministic(call_id: str) -> None:
    normalised = normalise_call_id(call_id)
    assert CALL_ID_PATTERN.match(normalised)
    assert normalise_call_id(call_id) == normalised
    if CALL_ID_PATTERN.match(call_id):
        assert normalised == call_id


@given(st.text(min_size=65, max_size=120), st.text(min_size=65, max_size=120))
def test_long_ids_do_not_collide(first: str, second: str) -> None:
    if first != second:
        assert normalise_call_id(first) != normalise_call_id(second)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_arguments_round_trip_in_one_key_order(arguments: dict[str, JsonValue]) -> None:
    text = arguments_text(arguments)
    assert json.loads(text) == arguments
    # The same value in another key order serialises to the same bytes.
    reordered = dict(reversed(list(arguments.items())))
    assert arguments_text(reordered) == text


def test_argument_parsing_keeps_what_is_not_json() -> None:
    assert parse_arguments("") == {}
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments('{"a": ') == '{"a": '
    assembler = BlockAssembler()
    assembler.open_tool_call("k", "", "read")
    assembler.arguments("k", '{"path": "a.py"}')
    # A server that sends no id still yields a call the result can answer.
    assert assembler.blocks() == (ToolCallBlock("call_0", "read", {"path": "a.py"}),)
