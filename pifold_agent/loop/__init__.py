"""The bundled agent's loop: events, tools, queues, the run itself, and session catch-up."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pifold_agent.loop.agent import Agent, AgentConfig, RunResult
    from pifold_agent.loop.events import AgentEvent, event_json
    from pifold_agent.loop.queues import MessageQueue, Queues
    from pifold_agent.loop.recorder import MemoryRecorder, SessionRecorder
    from pifold_agent.tools.protocol import Tool, ToolContext, ToolCrash, ToolOutcome

_HOMES = {
    "Agent": "agent",
    "AgentConfig": "agent",
    "RunResult": "agent",
    "AgentEvent": "events",
    "event_json": "events",
    "MessageQueue": "queues",
    "Queues": "queues",
    "MemoryRecorder": "recorder",
    "SessionRecorder": "recorder",
    "Tool": "tool_protocol",
    "ToolContext": "tool_protocol",
    "ToolCrash": "tool_protocol",
    "ToolOutcome": "tool_protocol",
}
"""The module each name lives in. They load on first use, so importing one light module of
the loop (``tool_protocol``, ``approval``) does not import the agent and the engine: the
terminal app's first frame is drawn before those load."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "Agent",
    "AgentConfig",
    "AgentEvent",
    "MemoryRecorder",
    "MessageQueue",
    "Queues",
    "RunResult",
    "SessionRecorder",
    "Tool",
    "ToolContext",
    "ToolCrash",
    "ToolOutcome",
    "event_json",
]
