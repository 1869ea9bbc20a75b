"""The agent's built-in tools, Pi's seven (pi-host §2), against the loop's tool contract
(:mod:`pifold_agent.tools.protocol`).

``read``, ``write``, ``edit``, ``bash``, ``grep``, ``find`` and ``ls``, one module each,
sharing :mod:`~pifold_agent.tools.truncation` (2,000 lines / 50 KB) and
:mod:`~pifold_agent.tools.arguments` (argument checks, path resolution; an engine id is
never read as a path). grep and find use ripgrep and fd when they are on ``PATH`` and a
pure-Python search honouring ``.gitignore`` otherwise (:mod:`~pifold_agent.tools.gitignore`).

The session set-up (:func:`pifold_agent.run_setup.agent_tools`) adds the ``memory`` tool
(:mod:`pifold_agent.memory.tool`) after them. The engine's ``pi_fold_context`` is offered
beside them by :class:`pifold_agent.loop.fold_tool.FoldTool`, through the same path as every
other tool.
:func:`builtin_tools` builds a set in a fixed order, so the tool list, and the prompt prefix
it is part of, stays byte-stable for a session. Each tool declares itself in its own module
(its traits and ``TOOL``, :mod:`~pifold_agent.tools.built_in`); the
:mod:`~pifold_agent.tools.registry` finds them there and derives every table about them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.built_in import ToolSetup
from pifold_agent.tools.edit import EditTool
from pifold_agent.tools.find import FindTool
from pifold_agent.tools.grep import GrepTool
from pifold_agent.tools.ls import LsTool
from pifold_agent.tools.protocol import Tool
from pifold_agent.tools.read import ReadTool
from pifold_agent.tools.registry import BUILT_IN_TOOLS, DEFAULT_TOOLS, READ_ONLY_TOOLS, TOOL_ORDER
from pifold_agent.tools.write import WriteTool


class UnknownToolError(ValueError):
    """A tool name that is not built in; the message lists the known ones."""


def builtin_tools(
    names: Sequence[str] = TOOL_ORDER,
    key_variables: Collection[str] = (),
) -> list[Tool]:
    """The named built-in tools, in :data:`TOOL_ORDER` whatever order ``names`` has.

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
    setup = ToolSetup(tuple(key_variables))
    return [tool.build(setup) for tool in BUILT_IN_TOOLS if tool.name in names]


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
