"""The bundled agent's loop: events, tools, queues, the run itself, and session catch-up."""

from __future__ import annotations

from pifold_agent.loop.agent import Agent, AgentConfig, RunResult
from pifold_agent.loop.events import AgentEvent, event_json
from pifold_agent.loop.queues import MessageQueue, Queues
from pifold_agent.loop.recorder import MemoryRecorder, SessionRecorder
from pifold_agent.loop.tool_protocol import Tool, ToolContext, ToolCrash, ToolOutcome

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
