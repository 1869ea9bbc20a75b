"""One tool batch: the calls of an assistant message run concurrently, finalised in order.

Preflight happens first, in the assistant's order: an unknown tool or arguments that are not
a JSON object become an error result without running anything. The runnable calls then all
start at once (asyncio tasks) and are awaited in the assistant's order, each finalised (its
result recorded) as soon as it and every call before it are done, so the results always
follow the assistant's order whatever order the tools finish in.

**Calls sharing a file run in order.** Before a call runs it waits for every earlier call
of the batch it conflicts with (:mod:`pifold_agent.loop.call_order`: a write against any
call touching the same file under any spelling, bash against every call touching files),
so the files end as a sequential run in the model's order leaves them: no lost update, no
listing catching a write's temporary file. A call awaiting the user's permission asks
first and then waits for its turn.

**No tool error escapes a batch.** Any exception a tool raises (``BaseException``
subclasses too, but not cancellation and the deliberate :class:`ToolCrash`) becomes that
call's error result; every outcome is made admissible (:mod:`pifold_agent.loop.admissible`)
before it is recorded, and an entry the engine still refuses is recorded as an error result
naming why. The batch's other results are kept. A failure of the session file or the
engine's log itself (a full disk) is not a tool's error and still ends the run: no result
could be recorded then, and retrying could record one twice.

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

from pifold_agent.loop.admissible import admissible, admissible_text
from pifold_agent.loop.approval import ApprovalGate, ApprovalRequest
from pifold_agent.loop.call_order import CallOrder
from pifold_agent.loop.events import AgentEvent, ToolExecutionStart, ToolExecutionUpdate
from pifold_agent.providers.arguments import arguments_problem
from pifold_agent.tools.protocol import Footprint, Tool, ToolContext, ToolCrash, ToolOutcome
from pifold_core.canonical import JsonValue
from pifold_core.entries import EntryError, ToolCallBlock

ABORTED_RESULT = "error: aborted by the user before this call finished"
"""The result recorded for a call the user's abort interrupted."""

EVERYTHING = Footprint(everything=True)
"""The footprint of a tool whose own ``footprint`` failed: it is ordered like bash."""


async def run_batch(
    calls: Sequence[ToolCallBlock],
    tools: Mapping[str, Tool],
    cwd: Path,
    emit: Callable[[AgentEvent], None],
    finalise: Callable[[ToolCallBlock, ToolOutcome], None],
    gate: ApprovalGate | None = None,
    result_limit_bytes: int | None = None,
) -> None:
    """Run ``calls`` concurrently (in order where they share files); ``finalise`` each
    result in the assistant's order.

    With a ``gate``, a guarded call (write, edit, bash) waits for the user's permission
    before it starts, and a denied call is answered with the declined result.
    ``result_limit_bytes`` is the context's limit on a whole result, passed to each tool.
    """
    order = CallOrder([footprint_of(tools.get(call.name), call.arguments, cwd) for call in calls])
    pending: list[asyncio.Task[ToolOutcome] | ToolOutcome] = []
    for index, call in enumerate(calls):
        emit(ToolExecutionStart(call.id, call.name, call.arguments))
        work = _start(call, tools, cwd, emit, gate, order, index, result_limit_bytes)
        if isinstance(work, ToolOutcome):
            order.finished(index)
        pending.append(work)
    done = 0
    try:
        for call, work in zip(calls, pending, strict=True):
            outcome = work if isinstance(work, ToolOutcome) else await work
            record(call, outcome, finalise)
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
                record(call, _finished(work) or ToolOutcome(reason, is_error=True), finalise)
        raise


def footprint_of(tool: Tool | None, arguments: JsonValue, cwd: Path) -> Footprint:
    """The files a call touches, as its tool declares them (none for a tool that declares
    nothing or a call refused at preflight; everything when the declaration fails)."""
    method = getattr(tool, "footprint", None)
    if method is None or not isinstance(arguments, dict):
        return Footprint()
    try:
        footprint = method(arguments, cwd)
    except asyncio.CancelledError:
        raise
    except BaseException:
        return EVERYTHING
    return footprint if isinstance(footprint, Footprint) else EVERYTHING


def record(
    call: ToolCallBlock,
    outcome: object,
    finalise: Callable[[ToolCallBlock, ToolOutcome], None],
) -> None:
    """Finalise ``outcome`` made admissible; an entry the engine still refuses is answered
    with an error result naming why (nothing was recorded for the refused one)."""
    try:
        finalise(call, admissible(outcome, call.name))
    except EntryError as error:
        text = f"error: the result of {call.name} could not be recorded: {error}"
        finalise(call, ToolOutcome(admissible_text(text), is_error=True))


def _start(
    call: ToolCallBlock,
    tools: Mapping[str, Tool],
    cwd: Path,
    emit: Callable[[AgentEvent], None],
    gate: ApprovalGate | None,
    order: CallOrder,
    index: int,
    result_limit_bytes: int | None,
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

    context = ToolContext(call.id, cwd, update, result_limit_bytes)
    request = ApprovalRequest(call.id, tool.name, arguments)
    asks = gate if gate is not None and gate.needs_question(tool.name) else None
    return asyncio.create_task(
        _call(asks, request, tool, context, order, index), name=f"tool {call.id}"
    )


async def _call(
    gate: ApprovalGate | None,
    request: ApprovalRequest,
    tool: Tool,
    context: ToolContext,
    order: CallOrder,
    index: int,
) -> ToolOutcome:
    """Ask (when the gate says so), wait for the call's turn, run it; the calls waiting for
    this one may go however it ends."""
    try:
        if gate is not None:
            declined = await gate.check(request)
            if declined is not None:
                return declined
        await order.wait_turn(index)
        return await _guarded(tool, request.arguments, context)
    finally:
        order.finished(index)


async def _guarded(
    tool: Tool, arguments: dict[str, JsonValue], context: ToolContext
) -> ToolOutcome:
    """The tool's outcome; any exception but cancellation and a crash becomes an error result."""
    try:
        outcome = await tool.run(arguments, context)
    except (asyncio.CancelledError, ToolCrash):
        raise
    except BaseException as error:  # KeyboardInterrupt, SystemExit, ... from a tool: a result
        return ToolOutcome(f"error: {type(error).__name__}: {_message(error)}", is_error=True)
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


def _message(error: BaseException) -> str:
    """The exception's message; a message that cannot even be made says so."""
    try:
        return str(error)
    except Exception:
        return "(the error's message could not be shown)"


def _crash(error: BaseException) -> str:
    return f"error: not finished; the run stopped: {error}"


__all__ = ["ABORTED_RESULT", "footprint_of", "record", "run_batch"]
