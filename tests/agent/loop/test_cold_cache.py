"""Cold-cache commits through the real loop (issue 12): the agent passes its clock and the
model's cache lifetime with every request, so a pause longer than the lifetime lands the
standing marks at the next request, and a shorter one does not.

The session: six chapters with their marks pending (about 65 % of a 12k budget once the
scripted provider's count, system prompt and tools included, is bound), past the cold point
and short of ``maxTarget``, so only a cold cache can commit here.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pifold_agent.loop import Agent, AgentConfig, AgentEvent, MemoryRecorder
from pifold_agent.loop.events import CommitDone
from pifold_agent.loop.system_prompt import prompt_head_digest
from pifold_agent.providers.models import BUILT_IN, ModelDescriptor, cache_lifetime
from pifold_agent.run_setup import agent_config
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_core.engine import Engine
from tests.agent.loop.helpers import assert_session_consistent
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_lossless, pending_engine

LIFETIME_S = 300
START_MS = 1_800_000_000_000
BUDGET = 12_000


class Clock:
    """The host's clock, moved by the test: milliseconds since the epoch."""

    def __init__(self) -> None:
        self.now_ms = START_MS

    def __call__(self) -> int:
        return self.now_ms


def _script(path: Path) -> Path:
    lines = [{"script": "pifold", "version": 1}, {"assistant": "first answer"}]
    lines.append({"assistant": "second answer"})
    target = path / "script.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return target


def _session(tmp_path: Path) -> tuple[Engine, Agent, MemoryRecorder, Clock, list[AgentEvent]]:
    engine, _ = pending_engine(tmp_path, 6, small_options(budget=BUDGET, min_fold_chars=2_000))
    provider = ScriptedProvider(load_script(_script(tmp_path)), CharCounter())
    # The pending session was written without a session file: the recorder starts with it.
    clock, recorder = Clock(), MemoryRecorder(engine.view.transcript.entries)
    config = AgentConfig(Path.cwd(), "test system", cache_lifetime_s=LIFETIME_S)
    agent = Agent(engine, provider, [], recorder, config, clock=clock)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    # A first timed request: the clock the next one is measured against.
    assert asyncio.run(agent.run("first")).outcome == "stop"
    assert engine.view.commit_count == 0 and engine.view.marks
    expected = engine.expected_tokens()
    assert engine._policy.cold_commit_share * BUDGET <= expected < engine.options.max_tokens
    return engine, agent, recorder, clock, events


def _resumed(
    tmp_path: Path,
    engine: Engine,
    recorder: MemoryRecorder,
    clock: Clock,
    events: list[AgentEvent],
    system: str,
) -> Agent:
    """A new agent on the same engine and session, with ``system`` as its prompt (a resume)."""
    provider = ScriptedProvider(load_script(_script(tmp_path)), CharCounter())
    config = AgentConfig(Path.cwd(), system, cache_lifetime_s=LIFETIME_S)
    agent = Agent(engine, provider, [], recorder, config, clock=clock)
    agent.subscribe(events.append)
    return agent


def _commits(events: list[AgentEvent]) -> list[CommitDone]:
    return [event for event in events if isinstance(event, CommitDone)]


def test_a_pause_longer_than_the_lifetime_lands_a_cold_cache_commit(tmp_path: Path) -> None:
    engine, agent, recorder, clock, events = _session(tmp_path)
    before = engine.expected_tokens()
    clock.now_ms += (LIFETIME_S + 1) * 1_000
    assert asyncio.run(agent.run("second")).outcome == "stop"
    assert [commit.cause for commit in _commits(events)] == ["cold-cache"]
    assert engine._state.last_commit is not None and engine._state.last_commit.cause == "cold-cache"
    assert engine.expected_tokens() < before
    assert engine.view.audit_counts.unattributed == 0
    assert_lossless(engine)
    assert_session_consistent(engine, recorder)


def test_a_pause_within_the_lifetime_commits_nothing(tmp_path: Path) -> None:
    engine, agent, recorder, clock, events = _session(tmp_path)
    clock.now_ms += LIFETIME_S * 1_000
    assert asyncio.run(agent.run("second")).outcome == "stop"
    assert _commits(events) == [] and engine.view.commit_count == 0
    assert engine.view.audit_counts.unattributed == 0
    assert_session_consistent(engine, recorder)


@pytest.mark.parametrize("model", sorted(BUILT_IN))
def test_the_assembly_passes_the_descriptor_lifetime(tmp_path: Path, model: str) -> None:
    descriptor = BUILT_IN[model]
    config = agent_config(tmp_path, "session-1", descriptor)
    expected = descriptor.cache_lifetime_s if descriptor.cache_lifetime_s > 0 else None
    assert config.cache_lifetime_s == expected
    assert config.session_id == "session-1" and config.cwd == tmp_path


def test_an_unknown_lifetime_is_passed_as_none() -> None:
    local = ModelDescriptor("local-model", "openai-chat", 32_000, 4_000)
    assert local.cache_lifetime_s == 0
    assert cache_lifetime(local) is None
    assert cache_lifetime(None) is None
    assert agent_config(Path("."), "s", None).cache_lifetime_s is None
    assert cache_lifetime(BUILT_IN["claude-sonnet-4-5"]) == 300
    assert cache_lifetime(BUILT_IN["gpt-5.4"]) == 600


def test_a_new_system_prompt_within_the_lifetime_lands_a_cold_cache_commit(
    tmp_path: Path,
) -> None:
    # The session resumed by an agent whose prompt head differs (another day's date in the
    # default prompt, another tool set): nothing after the head is cached, so the commit is
    # free although the pause is short.
    engine, agent, recorder, clock, events = _session(tmp_path)
    assert engine._state.last_host_head == prompt_head_digest("test system", agent.specs)
    resumed = _resumed(tmp_path, engine, recorder, clock, events, "test system, next day")
    before = engine.expected_tokens()
    clock.now_ms += 1_000
    assert asyncio.run(resumed.run("second")).outcome == "stop"
    assert [commit.cause for commit in _commits(events)] == ["cold-cache"]
    assert engine.expected_tokens() < before
    assert engine.view.audit_counts.unattributed == 0
    assert_lossless(engine)
    assert_session_consistent(engine, recorder)


def test_the_same_system_prompt_within_the_lifetime_commits_nothing(tmp_path: Path) -> None:
    engine, _agent, recorder, clock, events = _session(tmp_path)
    resumed = _resumed(tmp_path, engine, recorder, clock, events, "test system")
    clock.now_ms += 1_000
    assert asyncio.run(resumed.run("second")).outcome == "stop"
    assert _commits(events) == [] and engine.view.commit_count == 0
    assert engine.view.audit_counts.unattributed == 0
    assert_session_consistent(engine, recorder)
