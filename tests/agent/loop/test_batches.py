"""Tool batches: concurrent execution, results in the assistant's order, errors as results."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pifold_agent.loop import ToolOutcome
from pifold_agent.loop.events import ToolExecutionEnd
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


async def test_a_batch_runs_concurrently_and_results_follow_the_assistants_order(
    tmp_path: Path,
) -> None:
    started: list[str] = []
    finished: list[str] = []
    all_started = asyncio.Event()

    async def wait_for_the_others(
        arguments: dict[str, JsonValue], context: ToolContext
    ) -> ToolOutcome:
        started.append(context.call_id)
        if len(started) == 3:
            all_started.set()
        # Sequential execution would never get here: the first call waits for the third.
        await asyncio.wait_for(all_started.wait(), timeout=10)
        # Finish in reverse order of the calls.
        await asyncio.sleep(0.01 * int(str(arguments["rank"])))
        finished.append(context.call_id)
        return ToolOutcome(f"result of {context.call_id}")

    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [
            reply(
                "three at once",
                ("c1", "probe", {"rank": 3}),
                ("c2", "probe", {"rank": 2}),
                ("c3", "probe", {"rank": 1}),
            ),
            reply("done"),
        ]
    )
    agent, recorder, events = make_agent(
        engine, provider, [FunctionTool("probe", wait_for_the_others)]
    )
    result = await agent.run("go")

    assert result.outcome == "stop" and result.final_text == "done"
    assert finished == ["c3", "c2", "c1"]
    results = [entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"]
    assert [entry.call_id for entry in results] == ["c1", "c2", "c3"]
    assert [entry.text for entry in results] == ["result of c1", "result of c2", "result of c3"]
    ends = of_type(events, "tool_execution_end")
    assert [event.call_id for event in ends if isinstance(event, ToolExecutionEnd)] == [
        "c1",
        "c2",
        "c3",
    ]
    assert [entry.id for entry in recorder.entries] == [
        entry.id for entry in engine.view.transcript.entries
    ]
    # The second request carried the batch exactly as the engine projected it.
    assert list(provider.requests[1].messages) == engine.view.projection.messages()[:-1]
    assert_session_consistent(engine, recorder)


async def test_a_failing_tool_an_unknown_tool_and_bad_arguments_are_results(
    tmp_path: Path,
) -> None:
    async def explode(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        raise FileNotFoundError("no such file: src/missing.py")

    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [
            reply(
                "",
                ("c1", "explode", {}),
                ("c2", "teleport", {"to": "mars"}),
                ("c3", "explode", "not json {"),  # type: ignore[arg-type]
            ),
            reply("I could not read it."),
        ]
    )
    agent, recorder, _ = make_agent(engine, provider, [FunctionTool("explode", explode)])
    result = await agent.run("read it")

    assert result.outcome == "stop"
    results = [entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"]
    assert all(entry.is_error for entry in results)
    assert "FileNotFoundError: no such file: src/missing.py" in results[0].text
    assert "tool 'teleport' not found" in results[1].text
    assert "must be a JSON object" in results[2].text
    assert kinds(engine.view.transcript.entries) == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
        "tool_result",
        "assistant",
    ]
    assert_session_consistent(engine, recorder)


async def test_the_fold_tool_goes_through_the_same_path(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [
            reply("", ("c1", "pi_fold_context", {"action": "status"})),
            reply("", ("c2", "pi_fold_context", {"action": "peek", "id": "../etc/passwd"})),
            reply("all good"),
        ]
    )
    agent, recorder, _ = make_agent(engine, provider)
    assert [tool.name for tool in agent.tools][-1] == "pi_fold_context"
    await agent.run("how full is the context?")

    status, refused = [e for e in engine.view.transcript.entries if e.kind == "tool_result"]
    assert status.tool_name == "pi_fold_context" and not status.is_error
    assert "window: " in status.text and "of 200,000 tokens" in status.text
    assert refused.is_error and "path" in refused.text
    assert [e.id for e in recorder.entries] == [e.id for e in engine.view.transcript.entries]
    assert_session_consistent(engine, recorder)


async def test_a_tool_crash_stops_the_run_loudly_with_every_call_answered(
    tmp_path: Path,
) -> None:
    from pifold_agent.loop import ToolCrash

    async def damaged(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        raise ToolCrash("the fold store is damaged: object 3f2a... does not match its hash")

    async def waits(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        await asyncio.Event().wait()
        return ToolOutcome("never")

    engine = open_engine(tmp_path)
    provider = ProgrammedProvider([reply("", ("c1", "damaged", {}), ("c2", "waits", {}))])
    tools = [FunctionTool("damaged", damaged), FunctionTool("waits", waits)]
    agent, recorder, events = make_agent(engine, provider, tools)
    with pytest.raises(ToolCrash, match="fold store is damaged"):
        await agent.run("peek it")

    results = [entry for entry in engine.view.transcript.entries if entry.kind == "tool_result"]
    assert [entry.call_id for entry in results] == ["c1", "c2"]
    assert all(entry.is_error and "the run stopped" in entry.text for entry in results)
    assert [event.type for event in events][-2:] == ["error", "run_end"]
    assert_session_consistent(engine, recorder)
