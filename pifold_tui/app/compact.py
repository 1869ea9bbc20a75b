"""``/compact``: Pi's native compaction as the escape hatch out of folding.

The history is summarised by the session's own model and Pi's ``compaction`` entry is
written to the session file (:mod:`pifold_agent.compaction`, through the same
:class:`~pifold_agent.native_window.NativeWindow` as ``--no-fold``). From then on the
session runs on native compaction: requests carry the summary and the kept messages, the
folding engine is closed (its state stays on disk, untouched) and the bar leaves the screen,
since nothing is folded any more. The agent is rebuilt over the native window with the same
provider, tools, approver and session. A failed summarisation changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from pifold_agent.compaction import CompactionSettings
from pifold_agent.loop import Agent, AgentConfig, AgentEvent
from pifold_agent.loop.events import ErrorEvent
from pifold_agent.native_window import NativeWindow
from pifold_agent.providers.models import load_models
from pifold_core.options import EngineOptions
from pifold_tui.app.session_setup import AppSession


class CompactRefused(RuntimeError):
    """``/compact`` cannot run on this session; the message says why."""


def context_window_of(session: AppSession) -> int:
    """The model's window (budget plus output reservation), or the engine's budget plus
    Pi's reserve when the table does not know the model."""
    descriptor = load_models().get(session.provider.model)
    if descriptor is not None:
        return descriptor.context_window
    budget = session.engine.options.budget if session.engine is not None else EngineOptions().budget
    return budget + CompactionSettings().reserve_tokens


async def compact(session: AppSession, emit: Callable[[AgentEvent], None]) -> bool:
    """Summarise the session's history now and switch it to native compaction.

    Returns whether a compaction entry was written; when there is nothing old enough to
    summarise, nothing is written and the session keeps folding.

    Raises:
        CompactRefused: the session keeps no file (the demo), or the summarisation failed
            (the session is unchanged and keeps folding).
    """
    if session.session_file is None:
        raise CompactRefused("/compact needs a session file; the demo keeps its messages in memory")
    if session.engine is None:
        window = session.agent.window
        if not isinstance(window, NativeWindow):
            raise CompactRefused("/compact: this session has no window to compact")
        return await window.compact_now(emit)
    native = NativeWindow(session.session_file, session.provider, context_window_of(session))
    failures: list[str] = []

    def watch(event: AgentEvent) -> None:
        if isinstance(event, ErrorEvent):
            failures.append(event.message)
        emit(event)

    written = await native.compact_now(watch)
    if failures:
        raise CompactRefused(f"{failures[-1]}; folding continues")
    if not written:
        return False  # nothing to summarise: the session keeps folding
    previous = session.agent
    config = AgentConfig(
        previous.config.cwd,
        session_id=previous.config.session_id,
        max_output_tokens=previous.config.max_output_tokens,
        approver=previous.config.approver,
    )
    folding = {tool.name for tool in previous.window.tools()}  # the fold tool goes with it
    tools = [tool for tool in previous.tools if tool.name not in folding]
    session.agent = Agent(native, session.provider, tools, session.session_file, config)
    if previous.approval is not None and session.agent.approval is not None:
        # "Allow for this session" answers outlive the switch: it is the same session.
        session.agent.approval.allowed_tools.update(previous.approval.allowed_tools)
    session.engine.close()
    session.engine = None
    return True


__all__ = ["CompactRefused", "compact", "context_window_of"]
