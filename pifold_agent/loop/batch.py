"""One tool batch: every call of an assistant message run concurrently, finalised in order.

Preflight happens first, in the assistant's order: an unknown tool or arguments that are not
a JSON object become an error result without running anything. The runnable calls then all
start at once (asyncio tasks) and are awaited in the assistant's order, each finalised (its
result recorded) as soon as it and every call before it are done, so the results always
follow the assistant's order whatever order the tools finish in.

Abort is cancellation of the task running the batch. Every running tool is cancelled and
awaited (the bash tool kills its process group then), and every call without a finished
result is finalised with an error result saying it was aborted, so the transcript stays
valid: every call answered exactly once. :class:`ToolCrash` stops the batch the same way and
then propagates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import cast

from pifold_agent.loop.approval import ApprovalGate, ApprovalRequest
from pifold_agent.loop.events import AgentEvent, ToolExecutionStart, ToolExecutionUpdate
from pifold_agent.loop.tool_protocol import Tool, ToolContext, ToolCrash, ToolOutcome
from pifold_agent.providers.arguments import arguments_problem
from pifold_core.canonical import JsonValue
from pifold_core.entries import ToolCallBlock

ABORTED_RESULT = "error: aborted by the user before this call finished"
"""The result recorded for a call the user's abort interrupted."""


async def run_batch(
    calls: Sequence[ToolCallBlock],
    tools: Mapping[str, Tool],
    cwd: Path,
    emit: Callable[[AgentEvent], None],
    finalise: Callable[[ToolCallBlock, ToolOutcome], None],
    gate: ApprovalGate | None = None,
) -> None:
    """Run ``calls`` concurrently; ``finalise`` each result in the assistant's order.

    With a ``gate``, a guarded call (write, edit, bash) waits for the user's permission
    before it starts, and a denied call is answered with the declined result.
    """
    pending: list[asyncio.Task[ToolOutcome] | ToolOutcome] = []
    for call in calls:
        emit(ToolExecutionStart(call.id, call.name, call.arguments))
        pending.append(_start(call, tools, cwd, emit, gate))
    done = 0
    try:
        for call, work in zip(calls, pending, strict=True):
            outcome = work if isinstance(work, ToolOutcome) else await work
            finalise(call, outcome)
            done += 1
    except BaseException as error:
        # Cancellation (the user's abort) or a ToolCrash: stop every tool still running,
        # wait for them to clean up, then answer every call not finalised yet.
        tasks = [work for work in pending[done:] if isinstance(work, asyncio.Task)]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if isinstance(error, asyncio.CancelledError | ToolCrash):
            reason = ABORTED_RESULT if isinstance(error, asyncio.CancelledError) else _crash(error)
            for call, work in zip(calls[done:], pending[done:], strict=True):
                finalise(call, _finished(work) or ToolOutcome(reason, is_error=True))
        raise


def _start(
    call: ToolCallBlock,
    tools: Mapping[str, Tool],
    cwd: Path,
    emit: Callable[[AgentEvent], None],
    gate: ApprovalGate | None = None,
) -> asyncio.Task[ToolOutcome] | ToolOutcome:
    tool = tools.get(call.name)
    if tool is None:
        return ToolOutcome(f"error: tool {call.name!r} not found", is_error=True)
    if not isinstance(call.arguments, dict):
        return ToolOutcome(
            f"error: the arguments of {call.name} must be a JSON object; "
            f"{arguments_problem(call.arguments)}",
            is_error=True,
        )
    arguments = cast(dict[str, JsonValue], call.arguments)

    def update(text: str) -> None:
        emit(ToolExecutionUpdate(call.id, text))

    context = ToolContext(call.id, cwd, update)
    if gate is not None and gate.needs_question(tool.name):
        request = ApprovalRequest(call.id, tool.name, arguments)
        return asyncio.create_task(_asked(gate, request, tool, context), name=f"tool {call.id}")
    return asyncio.create_task(_guarded(tool, arguments, context), name=f"tool {call.id}")


async def _asked(
    gate: ApprovalGate, request: ApprovalRequest, tool: Tool, context: ToolContext
) -> ToolOutcome:
    """Run the call once the user allows it; the declined result when they do not."""
    declined = await gate.check(request)
    if declined is not None:
        return declined
    return await _guarded(tool, request.arguments, context)


async def _guarded(
    tool: Tool, arguments: dict[str, JsonValue], context: ToolContext
) -> ToolOutcome:
    """The tool's outcome; any exception but cancellation and a crash becomes an error result."""
    try:
        outcome = await tool.run(arguments, context)
    except ToolCrash:
        raise
    except Exception as error:
        return ToolOutcome(f"error: {type(error).__name__}: {error}", is_error=True)
    if not isinstance(outcome, ToolOutcome):
        return ToolOutcome(
            f"error: tool {tool.name} returned {type(outcome).__name__}, not a ToolOutcome",
            is_error=True,
        )
    return outcome


def _finished(work: asyncio.Task[ToolOutcome] | ToolOutcome) -> ToolOutcome | None:
    """The outcome of a call that completed before the batch stopped, if it did."""
    if isinstance(work, ToolOutcome):
        return work
    if work.done() and not work.cancelled() and work.exception() is None:
        return work.result()
    return None


def _crash(error: BaseException) -> str:
    return f"error: not finished; the run stopped: {error}"


__all__ = ["ABORTED_RESULT", "run_batch"]
