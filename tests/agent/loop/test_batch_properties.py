"""Invariants of a tool batch under any finishing order and any abort point (hypothesis)."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pifold_agent.loop import ToolOutcome
from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import (
    FunctionTool,
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=5),
    failing=st.sets(st.integers(min_value=0, max_value=4)),
    abort_after=st.one_of(st.none(), st.integers(min_value=0, max_value=8)),
)
def test_every_call_is_answered_once_in_the_assistants_order(
    steps: list[int], failing: set[int], abort_after: int | None
) -> None:
    """Calls finish after ``steps[i]`` event-loop turns; some raise; the run may be aborted
    after ``abort_after`` turns. Whatever happens, each call has exactly one result, the
    results follow the calls, and the session and engine agree."""

    async def scenario(folder: Path) -> None:
        async def work(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
            index = int(str(arguments["index"]))
            for _ in range(steps[index]):
                await asyncio.sleep(0)
            if index in failing:
                raise RuntimeError(f"call {index} failed")
            return ToolOutcome(f"done {index}")

        calls = [(f"c{index}", "work", {"index": index}) for index in range(len(steps))]
        engine = open_engine(folder)
        provider = ProgrammedProvider([reply("", *calls), reply("finished")])
        agent, recorder, _ = make_agent(engine, provider, [FunctionTool("work", work)])
        task = asyncio.create_task(agent.run("go"))
        if abort_after is not None:
            for _ in range(abort_after):
                await asyncio.sleep(0)
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        entries = engine.view.transcript.entries
        results = [entry for entry in entries if entry.kind == "tool_result"]
        if any(entry.tool_calls for entry in entries):
            assert [entry.call_id for entry in results] == [call[0] for call in calls]
            for index, entry in enumerate(results):
                if entry.text == ABORTED_RESULT:
                    assert entry.is_error
                elif index in failing:
                    assert entry.is_error and f"call {index} failed" in entry.text
                else:
                    assert (entry.is_error, entry.text) == (False, f"done {index}")
        assert_session_consistent(engine, recorder)

    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(scenario(Path(folder)))
