"""A request past the budget is recovered before it is sent (issue 12, the runway rule).

The engine holds back a threshold commit that buys no runway even past the budget, so the
host's overflow recovery is the net. A provider whose window is larger than the budget never
refuses, so the loop recovers before sending, as a refusal would have made it: the request
the provider sees fits the budget, and the commit is attributed ``overflow``.

The session: six chapters with their marks pending, and a system prompt large enough that
folding every chapter cannot leave the runway the rule asks for. The engine counts that
prompt from the start (issue 22), so the very first request is recovered before it is sent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig, AgentEvent, MemoryRecorder
from pifold_agent.loop.events import CommitDone
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from tests.agent.loop.helpers import assert_session_consistent
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_lossless, pending_engine

BUDGET = 12_000


def _script(path: Path) -> Path:
    lines = [{"script": "pifold", "version": 1}, {"assistant": "first"}, {"assistant": "second"}]
    target = path / "script.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return target


def test_a_request_past_the_budget_is_recovered_before_it_is_sent(tmp_path: Path) -> None:
    engine, _ = pending_engine(tmp_path, 6, small_options(budget=BUDGET, min_fold_chars=2_000))
    provider = ScriptedProvider(load_script(_script(tmp_path)), CharCounter())
    recorder = MemoryRecorder(engine.view.transcript.entries)
    config = AgentConfig(Path.cwd(), "host prompt " * 1800)
    agent = Agent(engine, provider, [], recorder, config)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    # The host prompt is counted from the start (issue 22): the very first request is known
    # to be past the budget before anything is sent, with no provider count needed.
    assert asyncio.run(agent.run("first")).outcome == "stop"
    commits = [event for event in events if isinstance(event, CommitDone)]
    assert [commit.cause for commit in commits] == ["overflow"]
    prefix = engine.view.prefix_tokens
    assert prefix > 0 and commits[0].prefix == prefix
    assert commits[0].tokens_before > BUDGET >= commits[0].tokens_after
    assert asyncio.run(agent.run("second")).outcome == "stop"
    assert len([event for event in events if isinstance(event, CommitDone)]) == 1
    # What the provider was first sent is the folded window, never the one past the budget.
    assert len(provider.requests[0].messages) == len(provider.requests[1].messages) - 2
    assert engine.view.floor is not None  # the threshold commit was held back, and says why
    assert engine.expected_tokens() <= BUDGET
    assert engine.view.audit_counts.unattributed == 0
    assert_lossless(engine)
    assert_session_consistent(engine, recorder)
