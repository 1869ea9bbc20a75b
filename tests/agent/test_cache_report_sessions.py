"""The providers' own cache reports, audited beside the engine's, through the real SDKs.

The whole agent runs a session against the local server, which plays the provider's side
of cache diagnostics as each documents it (:mod:`tests.agent.providers.cache_server`): it
fingerprints every request under its reply's id and, when a request names an earlier reply,
says whether and where the two diverged. The session commits inside its long turn, so one
request rewrites what the one before sent: the provider reports that miss, and the engine's
audit explains it by the commit. Nothing else may miss unexplained.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pifold_agent.cache_report.records import entry_verdict
from pifold_agent.cache_report.tally import CacheTally
from pifold_agent.loop import Agent, AgentConfig, MemoryRecorder, Tool
from pifold_agent.loop.system_prompt import ordered_tools, system_prompt
from pifold_agent.providers.anthropic_messages import AnthropicMessages
from pifold_agent.providers.base import Provider
from pifold_agent.providers.openai_responses import OpenAIResponses
from pifold_agent.replay import replay_trace
from pifold_agent.sessions.session_file import SessionFile
from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.read import ReadTool
from pifold_core.engine import Engine
from tests.agent.loop.helpers import assert_session_consistent
from tests.agent.providers.cache_server import DiagnosingCache
from tests.agent.providers.local_server import RecordedRequest, Reply, serve
from tests.agent.providers.scripted_sse import ABSENT, Turn, anthropic_turn, responses_turn
from tests.agent.test_end_to_end_sdks import MODULES, ScriptedModel, make_repository
from tests.core.builders import CharCounter, small_options

MODELS = {"anthropic": "claude-sonnet-4-5", "openai": "gpt-5.6"}
LIFETIME_S = 300


@dataclass
class Clock:
    """Milliseconds now, moved on by the test (a pause longer than the cache's lifetime)."""

    now: int = 1_800_000_000_000

    def __call__(self) -> int:
        self.now += 1_000
        return self.now


@dataclass
class DiagnosingModel:
    """The scripted model's turns, answered with the provider's cache diagnostics."""

    provider: str
    cache: DiagnosingCache
    clock: Clock
    pause_after: int | None = None
    """After answering this request (1-based), the cache expires and the clock moves on."""
    lie_at: int | None = None
    """At this request the server claims the messages changed, whatever they are."""
    answer_at: int | None = None
    """The model answers (no more tool calls) at this request."""
    script: ScriptedModel = field(init=False)

    def __post_init__(self) -> None:
        self.script = ScriptedModel(self.provider)

    def __call__(self, request: RecordedRequest) -> Reply:
        turn = self.script.turn(request)
        self.script.turns += 1
        if self.script.turns == self.answer_at:
            turn = Turn("Every module defines numbered value constants.")
        diagnosis = self.cache.diagnose(request.body, ABSENT)
        prompt = len(request.raw) // 4
        cached = min(diagnosis.cached, prompt)
        diagnostics = diagnosis.diagnostics
        if self.cache.count == self.lie_at:
            lie = {"type": "messages_changed", "cache_missed_input_tokens": 77}
            diagnostics = (
                {"cache_miss_reason": lie}
                if self.provider == "anthropic"
                else {"type": "cache_miss", "reason": "input_changed", "cache_missed_tokens": 77}
            )
        if self.cache.count == self.pause_after:
            self.cache.expire()
            self.clock.now += (LIFETIME_S + 60) * 1_000
        model = MODELS[self.provider]
        if self.provider == "anthropic":
            body = anthropic_turn(turn, prompt, model, diagnosis.reply_id, diagnostics, cached)
        else:
            body = responses_turn(turn, prompt, model, self.cache.count, diagnostics, cached)
        return Reply(body=body)


def adapter(provider: str, base_url: str) -> Provider:
    # A local server is not the provider's own host: the diagnostics are asked explicitly.
    if provider == "anthropic":
        return AnthropicMessages(MODELS[provider], "test-key", base_url, cache_diagnostics=True)
    return OpenAIResponses(MODELS[provider], "test-key", f"{base_url}/v1", cache_controls=True)


@dataclass
class Session:
    engine: Engine
    recorder: MemoryRecorder
    server_requests: list[RecordedRequest]
    model: DiagnosingModel
    outcome: str


@pytest.fixture
def run_session(tmp_path: Path) -> Iterator[Any]:
    async def run(provider: str, budget: int, **model_options: Any) -> Session:
        repository = make_repository(tmp_path)
        engine = Engine.open(tmp_path / "state", small_options(budget=budget), CharCounter())
        tools: list[Tool] = [ReadTool(), BashTool()]
        clock = Clock()
        model = DiagnosingModel(provider, DiagnosingCache(provider), clock, **model_options)
        recorder = MemoryRecorder()
        with serve([model] * (MODULES + 3)) as server:
            prompt = system_prompt(ordered_tools(tools), repository, datetime.date(2026, 12, 1))
            config = AgentConfig(
                repository, prompt, session_id="cache-session", cache_lifetime_s=LIFETIME_S
            )
            agent = Agent(
                engine, adapter(provider, server.base_url), tools, recorder, config, clock=clock
            )
            result = await agent.run("Review every module in src/ and say what each defines.")
        return Session(engine, recorder, server.requests, model, result.outcome)

    yield run


def baselines(provider: str, requests: list[RecordedRequest]) -> list[str | None]:
    if provider == "anthropic":
        return [request.body["diagnostics"]["previous_message_id"] for request in requests]
    return [
        (request.body.get("prompt_cache_options") or {}).get("comparison_response_id")
        for request in requests
    ]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_a_commit_is_the_explained_miss_and_nothing_misses_unexplained(
    run_session: Any, provider: str, tmp_path: Path
) -> None:
    session = await run_session(provider, budget=9_000)
    assert session.outcome == "stop"
    engine = session.engine
    assert engine.view.commit_count >= 1
    assert engine.view.audit_counts.unattributed == 0
    # Every request names the reply before it; the first names none.
    ids = [diagnosis.reply_id for diagnosis in session.model.cache.diagnoses]
    assert baselines(provider, session.server_requests) == [None, *ids[:-1]]
    tally = CacheTally.of(engine.view.transcript.entries)
    assert tally.judged == len(session.server_requests)
    assert tally.misses >= 1 and tally.unexplained == 0
    assert tally.explained == tally.misses
    assert tally.last_miss is not None and tally.last_miss.describe().startswith("commit ")
    figure = tally.footer_figure()
    assert figure is not None and "hit · last miss: commit " in figure
    verdicts = [
        entry_verdict(entry) for entry in session.recorder.entries if entry.kind == "assistant"
    ]
    assert verdicts[0] is not None and verdicts[0].outcome == "first"
    assert_session_consistent(engine, session.recorder)
    reopened = Engine.open(engine.view.state_dir, read_only=True)
    try:
        assert CacheTally.of(reopened.view.transcript.entries) == tally
    finally:
        reopened.close()
    # The session file keeps the verdicts: a replay of it reports the same figures.
    written = SessionFile.create(tmp_path, tmp_path / "sessions")
    for entry in session.recorder.entries:
        written.record(entry)
    written.close()
    report = replay_trace(written.path, budget=9_000)
    assert report.unattributed == 0
    assert report.cache == tally.to_json()
    assert report.to_json()["cache"]["unexplained"] == 0


def test_openai_breakpoints_sit_on_the_system_prompt_and_the_settled_boundary() -> None:
    # Checked on the requests of a whole session below; this one pins the shape.
    from pifold_agent.providers.base import ProviderRequest
    from pifold_agent.providers.openai_responses import build_body

    messages = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_call", "id": "c1", "name": "read", "arguments": {}}],
        },
        {"role": "tool", "call_id": "c1", "content": [{"type": "text", "text": "file"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]
    request = ProviderRequest("system", messages, (), settled_messages=4, cache_baseline="resp_1")
    body = build_body(request, "gpt-5.6", True, cache_controls=True)
    explicit = {"mode": "explicit"}
    assert body["input"][0]["content"] == [
        {"type": "input_text", "text": "system", "prompt_cache_breakpoint": explicit}
    ]
    # The settled boundary ends on an assistant message, which takes no breakpoint: it steps
    # back to the tool result, whose output is a list of parts.
    assert body["input"][3]["output"] == [
        {"type": "input_text", "text": "file", "prompt_cache_breakpoint": explicit}
    ]
    assert body["prompt_cache_options"] == {"comparison_response_id": "resp_1"}
    plain = build_body(request, "gpt-5.6", True)
    assert "prompt_cache_options" not in plain and plain["input"][3]["output"] == "file"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_a_miss_nothing_explains_is_counted_unexplained(
    run_session: Any, provider: str
) -> None:
    session = await run_session(provider, budget=200_000, lie_at=3, answer_at=5)
    assert session.outcome == "stop"
    assert session.engine.view.commit_count == 0
    tally = CacheTally.of(session.engine.view.transcript.entries)
    assert (tally.misses, tally.unexplained) == (1, 1)
    assert tally.last_miss is not None and tally.last_miss.request == 3
    assert tally.last_miss.describe().startswith("UNEXPLAINED (")
    assert "1 unexplained" in (tally.footer_figure() or "")
    assert_session_consistent(session.engine, session.recorder)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_a_pause_past_the_lifetime_is_an_explained_expiry(
    run_session: Any, provider: str
) -> None:
    session = await run_session(provider, budget=200_000, pause_after=4, answer_at=6)
    assert session.outcome == "stop"
    tally = CacheTally.of(session.engine.view.transcript.entries)
    assert (tally.misses, tally.explained, tally.unexplained) == (1, 1, 0)
    assert tally.last_miss is not None and tally.last_miss.describe() == "expiry"
    assert tally.last_miss.request == 5
    assert_session_consistent(session.engine, session.recorder)
