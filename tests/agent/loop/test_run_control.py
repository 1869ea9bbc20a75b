"""Abort, steering and follow-up: a run the user interrupts or talks to stays consistent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pifold_agent.loop import ToolOutcome
from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_agent.loop.events import RunEnd
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import (
    FunctionTool,
    ProgrammedProvider,
    assert_session_consistent,
    kinds,
    make_agent,
    of_type,
    open_engine,
    reply,
)


async def test_abort_mid_stream_keeps_the_partial_message_out_of_the_engine(
    tmp_path: Path,
) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(["hang", reply("a fresh answer")])
    agent, recorder, events = make_agent(engine, provider)
    task = asyncio.create_task(agent.run("explain the parser"))
    await asyncio.wait_for(provider.hanging.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    aborted = recorder.entries[-1]
    assert aborted.kind == "assistant" and aborted.extra["stop_reason"] == "aborted"
    assert aborted.text == "partial answ"
    assert aborted.id not in engine.view.transcript.index_of
    assert kinds(engine.view.transcript.entries) == ["user"]
    end = of_type(events, "run_end")[-1]
    assert isinstance(end, RunEnd) and end.outcome == "aborted"
    assert not agent.running

    # The next run never replays the aborted message to the provider.
    result = await agent.run("try again")
    assert result.final_text == "a fresh answer"
    sent = provider.requests[-1].messages
    assert all("partial answ" not in str(message) for message in sent)
    assert [message["role"] for message in sent] == ["user", "user"]
    assert_session_consistent(engine, recorder)


async def test_abort_mid_batch_answers_every_call_and_keeps_finished_results(
    tmp_path: Path,
) -> None:
    quick_done = asyncio.Event()
    cancelled: list[str] = []

    async def quick(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        quick_done.set()
        return ToolOutcome("quick result")

    async def slow(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(context.call_id)  # where bash kills its process group
            raise
        return ToolOutcome("never")

    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [reply("", ("c1", "slow", {}), ("c2", "quick", {})), reply("after the abort")]
    )
    tools = [FunctionTool("slow", slow), FunctionTool("quick", quick)]
    agent, recorder, _ = make_agent(engine, provider, tools)
    task = asyncio.create_task(agent.run("run both"))
    await asyncio.wait_for(quick_done.wait(), timeout=10)
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert cancelled == ["c1"]
    first, second = [
        entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"
    ]
    assert (first.call_id, first.is_error, first.text) == ("c1", True, ABORTED_RESULT)
    assert (second.call_id, second.is_error, second.text) == ("c2", False, "quick result")
    result = await agent.run("carry on")
    assert result.final_text == "after the abort"
    assert_session_consistent(engine, recorder)


async def test_steering_lands_after_the_whole_batch(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [reply("", ("c1", "typing", {}), ("c2", "typing", {})), reply("noted, using tabs")]
    )
    agent_box: list[object] = []

    async def typing(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        if context.call_id == "c1":
            agent_box[0].steer("use tabs, not spaces")  # type: ignore[attr-defined]
        await asyncio.sleep(0)
        return ToolOutcome(f"ran {context.call_id}")

    agent, recorder, _ = make_agent(engine, provider, [FunctionTool("typing", typing)])
    agent_box.append(agent)
    await agent.run("format the file")

    entries = engine.view.transcript.entries
    assert kinds(entries) == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
        "user",
        "assistant",
    ]
    assert entries[4].text == "use tabs, not spaces"
    assert provider.requests[1].messages[-1]["content"] == [
        {"type": "text", "text": "use tabs, not spaces"}
    ]
    assert_session_consistent(engine, recorder)


async def test_a_follow_up_waits_until_the_model_would_stop(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [reply("", ("c1", "work", {})), reply("first task done"), reply("second task done")]
    )
    agent_box: list[object] = []

    async def work(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        agent_box[0].follow_up("now the second task")  # type: ignore[attr-defined]
        return ToolOutcome("worked")

    agent, recorder, events = make_agent(engine, provider, [FunctionTool("work", work)])
    agent_box.append(agent)
    result = await agent.run("first task")

    assert result.final_text == "second task done"
    entries = engine.view.transcript.entries
    assert kinds(entries) == ["user", "assistant", "tool_result", "assistant", "user", "assistant"]
    assert entries[3].text == "first task done" and entries[4].text == "now the second task"
    assert len(of_type(events, "run_end")) == 1
    assert_session_consistent(engine, recorder)


async def test_a_second_run_while_one_is_going_is_refused(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(["hang"])
    agent, recorder, _ = make_agent(engine, provider)
    task = asyncio.create_task(agent.run("first"))
    await asyncio.wait_for(provider.hanging.wait(), timeout=10)
    with pytest.raises(RuntimeError, match="already in progress"):
        await agent.run("second")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert kinds(engine.view.transcript.entries) == ["user"]
    assert_session_consistent(engine, recorder)


async def test_a_run_without_a_prompt_continues_only_from_an_unanswered_message(
    tmp_path: Path,
) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider([reply("first answer"), reply("continued")])
    agent, recorder, _ = make_agent(engine, provider)
    with pytest.raises(RuntimeError, match="nothing to continue"):
        await agent.run()
    await agent.run("question")
    with pytest.raises(RuntimeError, match="nothing to continue"):
        await agent.run()
    assert not agent.running and len(provider.requests) == 1
    agent.follow_up("one more thing")
    result = await agent.run()
    assert result.final_text == "continued"
    assert kinds(engine.view.transcript.entries) == ["user", "assistant", "user", "assistant"]
    assert_session_consistent(engine, recorder)
