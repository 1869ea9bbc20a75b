"""The agent's built-in tools, Pi's seven (pi-host §2), against the loop's tool contract
(:mod:`pifold_agent.loop.tool_protocol`).

``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find`` and ``ls``, one module each,
sharing :mod:`~pifold_agent.tools.truncation` (2,000 lines / 50 KB) and
:mod:`~pifold_agent.tools.arguments` (argument checks, path resolution; an engine id is
never read as a path). grep and find use ripgrep and fd when they are on ``PATH`` and a
pure-Python search honouring ``.gitignore`` otherwise (:mod:`~pifold_agent.tools.gitignore`).

Given a memory store, :func:`builtin_tools` adds the ``memory`` tool
(:mod:`pifold_agent.memory.tool`) after them. The engine's ``pi_fold_context`` is offered
beside them by
:class:`pifold_agent.loop.fold_tool.FoldTool`, through the same path as every other tool.
:func:`builtin_tools` builds a set in a fixed order, so the tool list, and the prompt prefix
it is part of, stays byte-stable for a session.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from pifold_agent.loop.tool_protocol import Tool
from pifold_agent.memory.store import MemoryStore
from pifold_agent.memory.tool import MemoryTool
from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.edit import EditTool
from pifold_agent.tools.find import FindTool
from pifold_agent.tools.grep import GrepTool
from pifold_agent.tools.ls import LsTool
from pifold_agent.tools.read import ReadTool
from pifold_agent.tools.write import WriteTool

TOOL_ORDER: tuple[str, ...] = ("read", "bash", "edit", "write", "grep", "find", "ls")
"""Every built-in tool, in the order they are offered."""

DEFAULT_TOOLS: tuple[str, ...] = ("read", "bash", "edit", "write")
"""Pi's default active set."""

READ_ONLY_TOOLS: tuple[str, ...] = ("read", "grep", "find", "ls")
"""Pi's read-only set."""


class UnknownToolError(ValueError):
    """A tool name that is not built in; the message lists the known ones."""


def builtin_tools(
    names: Sequence[str] = TOOL_ORDER,
    key_variables: Collection[str] = (),
    memory: MemoryStore | None = None,
) -> list[Tool]:
    """The named built-in tools, in :data:`TOOL_ORDER` whatever order ``names`` has, and the
    ``memory`` tool over ``memory`` when a store is given (:mod:`pifold_agent.memory.tool`).

    ``key_variables`` are the environment variables holding a provider key besides the
    providers' own (the one ``--api-key-env`` names): bash drops them from every command's
    environment, as it drops ``ANTHROPIC_API_KEY`` and ``OPENAI_API_KEY``.

    Raises:
        UnknownToolError: a name is not one of :data:`TOOL_ORDER`.
    """
    unknown = [name for name in names if name not in TOOL_ORDER]
    if unknown:
        raise UnknownToolError(
            f"unknown tool {unknown[0]!r}; the built-in tools are {', '.join(TOOL_ORDER)}"
        )
    makers: dict[str, Callable[[], Tool]] = {
        "read": ReadTool,
        "bash": lambda: BashTool(key_variables),
        "edit": EditTool,
        "write": WriteTool,
        "grep": GrepTool,
        "find": FindTool,
        "ls": LsTool,
    }
    tools: list[Tool] = [makers[name]() for name in TOOL_ORDER if name in names]
    return tools + ([MemoryTool(memory)] if memory is not None else [])


__all__ = [
    "DEFAULT_TOOLS",
    "READ_ONLY_TOOLS",
    "TOOL_ORDER",
    "BashTool",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "MemoryTool",
    "ReadTool",
    "UnknownToolError",
    "WriteTool",
    "builtin_tools",
]
