"""A stopped server, a URL that names none, a timeout: ``pifold -p`` ends with the cause named.

Through the headless command and the real OpenAI SDK against 127.0.0.1: nothing is mocked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.providers.base import ErrorClass
from pifold_agent.providers.request_timeout import (
    HOSTED_TIMEOUT_SECONDS,
    LOCAL_TIMEOUT_SECONDS,
    TIMEOUT_VARIABLE,
    RequestTimeoutError,
    request_timeout_s,
)
from pifold_agent.providers.resolve import resolve_provider
from tests.agent.headless_cases import (
    assert_session_consistent,
    headless,
    newest,
    options_in,
    refusal_problems,
    scoped_environment,
)
from tests.agent.providers.local_server import Reply, collect, done_of, serve
from tests.agent.providers.test_connection import closed_port, hello


def test_a_stopped_local_server_ends_the_run_at_once_naming_url_and_cause(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    outcome = headless(options_in(tmp_path, base_url=base, as_json=True))
    events = [json.loads(line) for line in outcome.out.splitlines()]
    assert outcome.code == 1
    assert not [event for event in events if event["type"] == "retry_wait"]  # not retried
    assert (
        f"cannot connect to {base}/chat/completions: connection refused "
        "(is the server running and listening there?)" in outcome.err
    )
    assert_session_consistent(newest(tmp_path).path)  # the prompt is kept, nothing torn


@pytest.mark.parametrize("url", ["not-a-url", "localhost:8080/v1", "http://:8080/v1"])
def test_a_base_url_naming_no_server_is_refused_before_anything_runs(
    tmp_path: Path, url: str
) -> None:
    outcome = headless(options_in(tmp_path, base_url=url))
    assert refusal_problems(outcome, 2, f"--base-url {url!r}", "http://") == []
    assert not (tmp_path / "sessions").exists()  # no session was started


async def test_a_silent_server_times_out_after_the_timeout_given() -> None:
    held = Reply(body=b"data: {}\n\n", hold_after=0)  # headers, then silence
    with serve([held]) as server:
        url = f"{server.base_url}/v1"
        provider = resolve_provider("openai-chat", "local-model", url, None, timeout_s=0.3)
        done = done_of(await collect(provider, hello()))
        held.release.set()
    assert done.error is not None and done.error.kind is ErrorClass.TRANSIENT
    assert done.error.message == (
        f"no answer to {url}/chat/completions in time "
        "(a longer wait: --timeout SECONDS, or PIFOLD_REQUEST_TIMEOUT)"
    )


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan"), float("inf"), 86_401.0])
def test_a_timeout_out_of_range_is_refused(tmp_path: Path, value: float) -> None:
    outcome = headless(options_in(tmp_path, base_url="http://127.0.0.1:9/v1", timeout_s=value))
    assert refusal_problems(outcome, 2, "--timeout must be a number of seconds above 0") == []


def test_where_the_timeout_comes_from() -> None:
    assert request_timeout_s(None, {}, None) == HOSTED_TIMEOUT_SECONDS
    assert request_timeout_s(None, {}, "http://127.0.0.1:8080/v1") == LOCAL_TIMEOUT_SECONDS
    assert request_timeout_s(None, {TIMEOUT_VARIABLE: " 90 "}, None) == 90.0
    assert request_timeout_s(30.0, {TIMEOUT_VARIABLE: "90"}, None) == 30.0  # the flag wins
    with pytest.raises(RequestTimeoutError, match=f"{TIMEOUT_VARIABLE} must be .* got 'soon'"):
        request_timeout_s(None, {TIMEOUT_VARIABLE: "soon"}, None)


def test_the_variable_reaches_a_run(tmp_path: Path) -> None:
    with scoped_environment({TIMEOUT_VARIABLE: "-5"}):
        outcome = headless(options_in(tmp_path, base_url="http://127.0.0.1:9/v1"))
    assert refusal_problems(outcome, 2, f"{TIMEOUT_VARIABLE} must be a number") == []
