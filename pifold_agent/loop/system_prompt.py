"""The system prompt and the order of the tools: both byte-stable for a whole session.

The prompt carries the date and never a time (a clock in the prompt would break the
provider's prefix cache on every request), and the tools are always offered in one fixed
order: the tools that declare a position first in that order (Pi's built-ins, in Pi's order:
:class:`~pifold_agent.tools.protocol.ToolTraits`), any other tool by name, the fold tool
last.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

from pifold_agent.providers.base import ToolSpec
from pifold_agent.tools.protocol import Tool
from pifold_agent.tools.registry import traits_of
from pifold_core.canonical import JsonValue, canonical_bytes, sha256_hex
from pifold_core.tool import TOOL_NAME


def ordered_tools(tools: Sequence[Tool]) -> list[Tool]:
    """``tools`` in the fixed order; two tools of one name are refused."""
    names = [tool.name for tool in tools]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"two tools share the name {', '.join(duplicates)}")

    def key(tool: Tool) -> tuple[int, int, str]:
        if tool.name == TOOL_NAME:
            return (2, 0, tool.name)
        position = traits_of(tool).position
        if position is not None:
            return (0, position, tool.name)
        return (1, 0, tool.name)

    return sorted(tools, key=key)


def tool_specs(tools: Sequence[Tool]) -> tuple[ToolSpec, ...]:
    """What the provider is told about each tool, in the order given."""
    return tuple(
        ToolSpec(
            tool.name,
            tool.description,
            dict(tool.parameters),
            getattr(tool, "anthropic_type", None),  # a native type Anthropic knows it by
        )
        for tool in tools
    )


def tool_definitions(specs: Sequence[ToolSpec]) -> list[JsonValue]:
    """The tools as every request describes them: name, description and parameters."""
    return [
        {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
        for spec in specs
    ]


def prompt_head_digest(system: str, specs: Sequence[ToolSpec]) -> str:
    """SHA-256 of the head every request carries before the conversation: the system prompt
    and the tools. The engine compares it with the previous request's: a new head (another
    day's date, another tool set) leaves nothing after it cached, so a commit there is free."""
    tools: list[JsonValue] = [
        {"name": spec.name, "description": spec.description, "parameters": spec.parameters}
        | ({"native": spec.anthropic_type} if spec.anthropic_type is not None else {})
        for spec in specs
    ]
    return sha256_hex(canonical_bytes({"system": system, "tools": tools}))


def system_prompt(tools: Sequence[Tool], cwd: Path, today: datetime.date, context: str = "") -> str:
    """The agent's system prompt: identity, tools, guidelines, the date and directory, then
    ``context`` (the project's context files and memory index, fixed for the session:
    :mod:`pifold_agent.memory.session_prompt`) when there is any."""
    lines = [
        "You are an expert coding assistant working in the user's repository through tools.",
        "",
        "Available tools:",
    ]
    for tool in tools:
        summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        lines.append(f"- {tool.name}: {summary}")
    names = {tool.name for tool in tools}
    lines += ["", "Guidelines:"]
    if names & {"grep", "find", "ls"} and "bash" in names:
        lines.append("- Prefer grep, find and ls over bash for exploring files.")
    if {"read", "edit"} <= names:
        lines.append("- Read a file before you edit it; edit needs an exact match of old text.")
    if "write" in names:
        lines.append("- Use write only for new files or complete rewrites.")
    if TOOL_NAME in names:
        lines.append(
            f"- Older parts of the conversation may be folded into briefs; use {TOOL_NAME} "
            "to peek at the exact original bytes before answering from them."
        )
    lines += [
        "- Be concise, and show file paths clearly when you work with files.",
        "",
        f"Current date: {today.isoformat()}",
        f"Current working directory: {cwd}",
    ]
    if context:
        lines += ["", context]
    return "\n".join(lines)


__all__ = [
    "ordered_tools",
    "prompt_head_digest",
    "system_prompt",
    "tool_definitions",
    "tool_specs",
]
