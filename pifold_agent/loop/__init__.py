"""The bundled agent's loop: events, tools, queues, the run itself, and session catch-up."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pifold_agent.loop.agent import Agent, RunResult
    from pifold_agent.loop.config import AgentConfig
    from pifold_agent.loop.events import AgentEvent, event_json
    from pifold_agent.loop.queues import MessageQueue, Queues
    from pifold_agent.loop.recorder import MemoryRecorder, SessionRecorder
    from pifold_agent.tools.protocol import Tool, ToolContext, ToolCrash, ToolOutcome

_HOMES = {
    "Agent": "pifold_agent.loop.agent",
    "AgentConfig": "pifold_agent.loop.config",
    "RunResult": "pifold_agent.loop.agent",
    "AgentEvent": "pifold_agent.loop.events",
    "event_json": "pifold_agent.loop.events",
    "MessageQueue": "pifold_agent.loop.queues",
    "Queues": "pifold_agent.loop.queues",
    "MemoryRecorder": "pifold_agent.loop.recorder",
    "SessionRecorder": "pifold_agent.loop.recorder",
    "Tool": "pifold_agent.tools.protocol",
    "ToolContext": "pifold_agent.tools.protocol",
    "ToolCrash": "pifold_agent.tools.protocol",
    "ToolOutcome": "pifold_agent.tools.protocol",
}
"""The module each name lives in (the tool contract is the tools' own). They load on first
use, so importing one light module of the loop (``approval``, ``events``) does not import the
agent and the engine: the terminal app's first frame is drawn before those load."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


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
