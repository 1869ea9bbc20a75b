"""The built-in tools, found where they are declared, and every table derived from them.

A module (or package) of :mod:`pifold_agent.tools` with a module-level ``TOOL``
(:class:`~pifold_agent.tools.built_in.BuiltIn`) is a built-in tool; nothing else lists
them. What the rest of the agent needs to know about them by name (which ask before
running, which change files, their order, the argument a header shows) is read here from
the traits each tool class declares (:class:`~pifold_agent.tools.protocol.ToolTraits`),
so a tool is described in one place: its own module.

Names are what a recorded session carries (a compaction counts the files of past calls, a
conversation shows past headers), so these tables are keyed by name. The loop reads a live
tool's traits through :func:`traits_of`: what the tool declares, else what the built-in tool
of its name declares (a recorded ``bash`` asks, and is listed, as ``bash`` does).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

from pifold_agent.tools.built_in import BuiltIn
from pifold_agent.tools.protocol import PLAIN_TRAITS, Tool, ToolTraits, Touches


class ToolDeclarationError(RuntimeError):
    """Two built-in tools share a name or a position, or one declares no position."""


def discover(package: str = "pifold_agent.tools") -> tuple[BuiltIn, ...]:
    """The ``TOOL`` of every module of ``package``, in their declared positions.

    Raises:
        ToolDeclarationError: a name or position is declared twice, or a tool has none.
    """
    found: list[BuiltIn] = []
    for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
        declared = getattr(importlib.import_module(f"{package}.{module.name}"), "TOOL", None)
        if isinstance(declared, BuiltIn):
            found.append(declared)
    return _checked(found)


def _checked(found: list[BuiltIn]) -> tuple[BuiltIn, ...]:
    positions: dict[int, str] = {}
    names: set[str] = set()
    for tool in found:
        position = tool.traits.position
        if position is None:
            raise ToolDeclarationError(f"built-in tool {tool.name!r} declares no position")
        if position in positions:
            raise ToolDeclarationError(
                f"built-in tools {positions[position]!r} and {tool.name!r} share position "
                f"{position}"
            )
        if tool.name in names:
            raise ToolDeclarationError(f"two built-in tools are named {tool.name!r}")
        positions[position] = tool.name
        names.add(tool.name)
    by_name = {tool.name: tool for tool in found}
    return tuple(by_name[name] for _, name in sorted(positions.items()))


BUILT_IN_TOOLS: tuple[BuiltIn, ...] = discover()
"""Every built-in tool, in the order they are offered."""

TRAITS: dict[str, ToolTraits] = {tool.name: tool.traits for tool in BUILT_IN_TOOLS}
"""Each built-in tool's traits, by name."""

TOOL_ORDER: tuple[str, ...] = tuple(tool.name for tool in BUILT_IN_TOOLS)
"""Every built-in tool, in the order they are offered (Pi's order for Pi's seven)."""

DEFAULT_TOOLS: tuple[str, ...] = tuple(
    tool.name for tool in BUILT_IN_TOOLS if tool.traits.in_default_set
)
"""Pi's default active set."""

READ_ONLY_TOOLS: tuple[str, ...] = tuple(
    tool.name for tool in BUILT_IN_TOOLS if tool.traits.read_only
)
"""Pi's read-only set."""

GUARDED_TOOLS: frozenset[str] = frozenset(
    tool.name for tool in BUILT_IN_TOOLS if tool.traits.asks_approval
)
"""The tools that ask before running: the ones that change files or run commands."""

READ_TOOLS: frozenset[str] = frozenset(
    tool.name for tool in BUILT_IN_TOOLS if tool.traits.touches is Touches.READS_FILE
)
"""Tools whose ``path`` argument names a file that was read."""

MODIFYING_TOOLS: frozenset[str] = frozenset(
    tool.name for tool in BUILT_IN_TOOLS if tool.traits.touches is Touches.MODIFIES_FILE
)
"""Tools whose ``path`` argument names a file that was changed."""

HEADLINES: dict[str, tuple[str, ...]] = {
    tool.name: tool.traits.headline for tool in BUILT_IN_TOOLS if tool.traits.headline
}
"""The arguments that say what a call of each built-in tool does."""


def traits_of(tool: Tool) -> ToolTraits:
    """What ``tool`` declares about itself; when it declares nothing, what the built-in tool
    of its name declares; otherwise :data:`~pifold_agent.tools.protocol.PLAIN_TRAITS`."""
    declared = getattr(tool, "traits", None)
    if isinstance(declared, ToolTraits):
        return declared
    return TRAITS.get(tool.name, PLAIN_TRAITS)


def guarded_names(tools: Iterable[Tool]) -> frozenset[str]:
    """The names of the tools that ask before running."""
    return frozenset(tool.name for tool in tools if traits_of(tool).asks_approval)


__all__ = [
    "BUILT_IN_TOOLS",
    "DEFAULT_TOOLS",
    "GUARDED_TOOLS",
    "HEADLINES",
    "MODIFYING_TOOLS",
    "READ_ONLY_TOOLS",
    "READ_TOOLS",
    "TOOL_ORDER",
    "TRAITS",
    "ToolDeclarationError",
    "discover",
    "guarded_names",
    "traits_of",
]
