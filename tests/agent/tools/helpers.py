"""Running a tool the way the loop does: a real context, updates collected."""

from __future__ import annotations

from pathlib import Path

from pifold_agent.tools.protocol import Tool, ToolContext, ToolOutcome
from pifold_core.canonical import JsonValue


class Updates:
    """Collects the partial output a tool streams."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, text: str) -> None:
        self.texts.append(text)


def context_for(cwd: Path, updates: Updates | None = None) -> ToolContext:
    return ToolContext("call-1", cwd, updates if updates is not None else Updates())


async def run(tool: Tool, cwd: Path, **arguments: JsonValue) -> ToolOutcome:
    return await tool.run(dict(arguments), context_for(cwd))
