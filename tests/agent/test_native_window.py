"""``--no-fold``: Pi's native compaction driving the same loop, summaries in the session."""

from __future__ import annotations

import json
from pathlib import Path

from pifold_agent.compaction import CompactionSettings
from pifold_agent.loop import Agent, AgentConfig, AgentEvent, ToolOutcome
from pifold_agent.loop.events import CompactionDone, OverflowRecovered
from pifold_agent.native_window import NativeWindow
from pifold_agent.scripted.provider import ScriptedProvider, load_script
from pifold_agent.sessions import SessionFile
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import FunctionTool
from tests.core.builders import CharCounter, filler


async def dump(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
    return ToolOutcome(filler(3_000, seed=len(context.call_id), stem=context.call_id))


def script(path: Path, turns: int, *tail: dict[str, object]) -> Path:
    lines: list[dict[str, object]] = [{"script": "pifold", "version": 1}, {"user": "dump it all"}]
    for number in range(turns):
        call = {"id": f"d{number}", "name": "dump", "arguments": {}}
        lines.append({"assistant": f"dump {number}", "tool_calls": [call]})
    lines += [*tail, {"summary": "SUMMARY: the first dumps were read."}]
    target = path / "script.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return target


def agent_on(tmp_path: Path, script_path: Path) -> tuple[Agent, SessionFile, NativeWindow]:
    session = SessionFile.create(tmp_path, tmp_path / "sessions")
    provider = ScriptedProvider(load_script(script_path), CharCounter())
    settings = CompactionSettings(reserve_tokens=1_000, keep_recent_tokens=1_500)
    window = NativeWindow(session, provider, context_window=5_000, settings=settings)
    tools = [FunctionTool("dump", dump)]
    agent = Agent(window, provider, tools, session, AgentConfig(tmp_path, "test system"))
    return agent, session, window


async def test_the_threshold_compacts_inside_a_long_turn(tmp_path: Path) -> None:
    agent, session, window = agent_on(tmp_path, script(tmp_path, 8, {"assistant": "done"}))
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    result = await agent.run("dump it all")

    assert result.outcome == "stop" and result.final_text == "done"
    compactions = [event for event in events if isinstance(event, CompactionDone)]
    assert len(compactions) == 1 and compactions[0].reason == "threshold"
    assert compactions[0].tokens_after < compactions[0].tokens_before
    assert [tool.name for tool in agent.tools] == ["dump"]  # no fold tool without folding
    latest = session.latest_compaction()
    assert latest is not None and "SUMMARY: the first dumps were read." in latest.summary
    assert "split turn" in latest.summary  # one long turn: Pi summarises its prefix
    # Later requests open with the summary, and nothing before the first kept entry.
    provider = agent.provider
    assert isinstance(provider, ScriptedProvider)
    last = provider.requests[-1].messages
    assert "SUMMARY: the first dumps were read." in json.dumps(last[0])
    assert [message for message in last if "dump it all" in json.dumps(message)] == []
    # The session file still holds every message: compaction loses them from the context,
    # never from the record.
    assert len([entry for entry in session.messages() if entry.kind == "tool_result"]) == 8
    assert window.compactions == 1


async def test_a_too_long_refusal_compacts_then_retries(tmp_path: Path) -> None:
    refusal = {"error": "context_too_long", "message": "prompt is too long"}
    path = script(tmp_path, 3, refusal, {"assistant": "done after compaction"})
    agent, session, _ = agent_on(tmp_path, path)
    events: list[AgentEvent] = []
    agent.subscribe(events.append)
    result = await agent.run("dump it all")

    assert result.final_text == "done after compaction"
    recovered = [event for event in events if isinstance(event, OverflowRecovered)]
    assert len(recovered) == 1 and recovered[0].fits
    reasons = [event.reason for event in events if isinstance(event, CompactionDone)]
    assert reasons == ["overflow"]
    assert session.latest_compaction() is not None
