"""Approval on the loop's side: guarded tools ask first, a denial runs nothing, and the
"allow for this session" answer is remembered per tool; the session stays consistent."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pifold_agent.loop import ToolOutcome
from pifold_agent.loop.approval import (
    DECLINED_RESULT,
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
)
from pifold_agent.loop.batch import ABORTED_RESULT
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from tests.agent.loop.helpers import (
    FunctionTool,
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)


@dataclass
class ScriptedApprover:
    """Answers each question with the next decision; records what it was asked."""

    decisions: list[ApprovalDecision]
    asked: list[ApprovalRequest] = field(default_factory=list)

    async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked.append(request)
        return self.decisions.pop(0)


def recording_tool(name: str, ran: list[str]) -> FunctionTool:
    async def body(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        ran.append(context.call_id)
        return ToolOutcome(f"{name} done")

    return FunctionTool(name, body)


def results(entries: Sequence[Entry]) -> dict[str, str]:
    """Each call's recorded result text, by call id."""
    return {str(entry.call_id): entry.text for entry in entries if entry.kind == "tool_result"}


async def test_denied_call_runs_nothing_and_tells_the_model(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    ran: list[str] = []
    provider = ProgrammedProvider(
        [reply("", ("c1", "bash", {"command": "rm -rf build"})), reply("understood")]
    )
    approver = ScriptedApprover([ApprovalDecision.DENY])
    agent, recorder, _ = make_agent(
        engine, provider, [recording_tool("bash", ran)], approver=approver
    )
    result = await agent.run("clean up")

    assert ran == []
    assert [request.summary for request in approver.asked] == ["run: rm -rf build"]
    result_entry = next(entry for entry in recorder.entries if entry.kind == "tool_result")
    assert result_entry.text == DECLINED_RESULT
    assert result_entry.is_error is True
    assert result.final_text == "understood"
    assert_session_consistent(engine, recorder)


async def test_allow_once_asks_again_and_allow_session_stops_asking(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    ran: list[str] = []
    provider = ProgrammedProvider(
        [
            reply("", ("c1", "write", {"path": "a.txt", "content": "a"})),
            reply("", ("c2", "write", {"path": "b.txt", "content": "b"})),
            reply("", ("c3", "write", {"path": "c.txt", "content": "c"})),
            reply("", ("c4", "write", {"path": "d.txt", "content": "d"})),
            reply("all written"),
        ]
    )
    approver = ScriptedApprover(
        [ApprovalDecision.ALLOW_ONCE, ApprovalDecision.ALLOW_SESSION, ApprovalDecision.DENY]
    )
    agent, recorder, _ = make_agent(
        engine, provider, [recording_tool("write", ran)], approver=approver
    )
    await agent.run("write four files")

    assert [request.call_id for request in approver.asked] == ["c1", "c2"]
    assert ran == ["c1", "c2", "c3", "c4"]
    assert approver.decisions == [ApprovalDecision.DENY]  # never needed
    assert_session_consistent(engine, recorder)


async def test_unguarded_tools_never_ask(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    ran: list[str] = []
    provider = ProgrammedProvider([reply("", ("c1", "read", {"path": "x"})), reply("read it")])
    approver = ScriptedApprover([])
    agent, recorder, _ = make_agent(
        engine, provider, [recording_tool("read", ran)], approver=approver
    )
    await agent.run("read x")
    assert approver.asked == [] and ran == ["c1"]
    assert_session_consistent(engine, recorder)


async def test_one_batch_asks_in_order_and_a_session_answer_covers_the_rest(
    tmp_path: Path,
) -> None:
    engine = open_engine(tmp_path)
    ran: list[str] = []
    calls = [(f"c{index}", "edit", {"path": f"f{index}.py"}) for index in range(1, 4)]
    provider = ProgrammedProvider(
        [reply("", *calls), reply("", ("c9", "bash", {"command": "ls"})), reply("done")]
    )
    approver = ScriptedApprover([ApprovalDecision.ALLOW_SESSION, ApprovalDecision.DENY])
    agent, recorder, _ = make_agent(
        engine,
        provider,
        [recording_tool("edit", ran), recording_tool("bash", ran)],
        approver=approver,
    )
    await agent.run("edit three files, then list")

    # One question for the batch (the first call); the other two waited and ran unasked.
    assert [request.call_id for request in approver.asked] == ["c1", "c9"]
    assert ran == ["c1", "c2", "c3"]
    answers = results(recorder.entries)
    assert answers["c9"] == DECLINED_RESULT
    assert agent.approval is not None and agent.approval.allowed_tools == {"edit"}
    assert_session_consistent(engine, recorder)


async def test_no_approver_asks_nothing(tmp_path: Path) -> None:
    engine = open_engine(tmp_path)
    ran: list[str] = []
    provider = ProgrammedProvider([reply("", ("c1", "bash", {"command": "ls"})), reply("ok")])
    agent, recorder, _ = make_agent(engine, provider, [recording_tool("bash", ran)])
    await agent.run("list")
    assert agent.approval is None and ran == ["c1"]
    assert_session_consistent(engine, recorder)


async def test_abort_while_the_question_is_open_answers_the_call_aborted(
    tmp_path: Path,
) -> None:
    engine = open_engine(tmp_path)
    ran: list[str] = []
    asked = asyncio.Event()
    question: list[asyncio.Future[ApprovalDecision]] = []

    class WaitingApprover:
        async def approve(self, request: ApprovalRequest) -> ApprovalDecision:
            future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
            question.append(future)
            asked.set()
            return await future

    provider = ProgrammedProvider([reply("", ("c1", "bash", {"command": "make"}))])
    agent, recorder, _ = make_agent(
        engine, provider, [recording_tool("bash", ran)], approver=WaitingApprover()
    )
    task = asyncio.create_task(agent.run("build"))
    await asyncio.wait_for(asked.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert ran == []
    assert question[0].cancelled()  # the UI sees the question withdrawn
    assert results(recorder.entries) == {"c1": ABORTED_RESULT}
    assert_session_consistent(engine, recorder)


def test_summaries_name_what_the_call_touches() -> None:
    assert ApprovalRequest("c", "edit", {"path": "src/a.py"}).summary == "edit: src/a.py"
    assert ApprovalRequest("c", "write", {"path": "b"}).summary == "write: b"
    assert ApprovalRequest("c", "bash", {"command": "ls -l"}).summary == "run: ls -l"
    assert ApprovalRequest("c", "bash", {}).summary == "bash: {}"


async def test_gate_without_question_for_tools_outside_the_guarded_set() -> None:
    approver = ScriptedApprover([])
    gate = ApprovalGate(approver)
    assert await gate.check(ApprovalRequest("c", "grep", {})) is None
    assert approver.asked == []
