"""How a built-in tool's module offers it: ``TOOL = BuiltIn(ReadTool)``.

Every module (or package) of :mod:`pifold_agent.tools` that has a module-level ``TOOL`` of
this type is a built-in tool: :mod:`pifold_agent.tools.registry` finds it there and derives
every table about the built-in tools from the class's ``name`` and ``traits``
(:class:`~pifold_agent.tools.protocol.ToolTraits`). Adding a tool is therefore its module
and its test, and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol

from pifold_agent.tools.protocol import Tool, ToolTraits


@dataclass(frozen=True, slots=True)
class ToolSetup:
    """What the host knows when it builds the tools, for the tools that need it."""

    key_variables: Collection[str] = ()
    """Environment variables holding a provider key besides the providers' own (the one
    ``--api-key-env`` names): bash drops them from every command's environment."""


class DeclaredTool(Protocol):
    """A built-in tool's class: its name and traits readable before any is built."""

    name: str
    """The name the model calls it by."""
    traits: ToolTraits
    """What it declares about itself."""


@dataclass(frozen=True, slots=True)
class BuiltIn:
    """One built-in tool: its class, and how to build it (with no arguments by default)."""

    kind: type[DeclaredTool]
    """The tool's class."""
    make: Callable[[ToolSetup], Tool] | None = None
    """Builds the tool from the host's setup; ``None`` calls the class with no arguments."""

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.kind.name

    @property
    def traits(self) -> ToolTraits:
        """The tool's traits."""
        return self.kind.traits

    def build(self, setup: ToolSetup) -> Tool:
        """A new tool of this kind."""
        if self.make is not None:
            return self.make(setup)
        built: Tool = self.kind()  # type: ignore[assignment]  # every BuiltIn class is a Tool
        return built


__all__ = ["BuiltIn", "DeclaredTool", "ToolSetup"]
