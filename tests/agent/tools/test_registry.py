"""The built-in tools are found where they are declared, and every table about them is
derived from their own traits (issue 20: a tool was described in up to six places)."""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest

from pifold_agent.loop.fold_tool import FoldTool
from pifold_agent.tools import builtin_tools
from pifold_agent.tools.built_in import ToolSetup
from pifold_agent.tools.protocol import (
    PLAIN_TRAITS,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    Touches,
)
from pifold_agent.tools.registry import (
    BUILT_IN_TOOLS,
    DEFAULT_TOOLS,
    GUARDED_TOOLS,
    HEADLINES,
    MODIFYING_TOOLS,
    READ_ONLY_TOOLS,
    READ_TOOLS,
    TOOL_ORDER,
    ToolDeclarationError,
    discover,
    guarded_names,
    traits_of,
)
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import FunctionTool

PI_TOOLS = ("read", "bash", "edit", "write", "grep", "find", "ls")
"""Pi's seven, in Pi's order: the first tools offered (a new tool comes after them)."""


def pis(names: Collection[str]) -> tuple[str, ...]:
    """Pi's tools among ``names``, in Pi's order."""
    return tuple(name for name in PI_TOOLS if name in names)


def test_pis_tools_keep_pis_tables() -> None:
    assert TOOL_ORDER[: len(PI_TOOLS)] == PI_TOOLS
    assert pis(DEFAULT_TOOLS) == ("read", "bash", "edit", "write")
    assert pis(READ_ONLY_TOOLS) == ("read", "grep", "find", "ls")
    assert pis(GUARDED_TOOLS) == ("bash", "edit", "write")
    assert pis(READ_TOOLS) == ("read",) and pis(MODIFYING_TOOLS) == ("edit", "write")
    assert {name: HEADLINES[name] for name in PI_TOOLS} == {
        "read": ("path",),
        "bash": ("command",),
        "edit": ("path",),
        "write": ("path",),
        "grep": ("pattern",),
        "find": ("pattern",),
        "ls": ("path",),
    }


def test_whatever_changes_files_or_runs_commands_asks_first() -> None:
    for tool in BUILT_IN_TOOLS:
        changes = tool.traits.touches in (Touches.MODIFIES_FILE, Touches.RUNS_COMMANDS)
        assert tool.traits.asks_approval == changes, tool.name


def test_each_headline_is_an_argument_of_the_tool() -> None:
    for tool in builtin_tools():
        properties = tool.parameters["properties"]
        assert isinstance(properties, dict)
        assert set(traits_of(tool).headline) <= set(properties), tool.name


def test_a_tool_is_known_by_its_own_traits_then_by_its_name() -> None:
    async def body(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        raise AssertionError("never run")

    stand_in = FunctionTool("bash", body)  # a recorded or test bash behaves as bash
    other = FunctionTool("custom", body)
    assert traits_of(stand_in).asks_approval and traits_of(stand_in).position == 1
    assert traits_of(other) is PLAIN_TRAITS
    assert FoldTool.traits.headline == ("action", "id")
    assert guarded_names([stand_in, other, *builtin_tools(["read", "edit"])]) == {"bash", "edit"}


@pytest.fixture
def tool_package(tmp_path: Path) -> Iterator[Path]:
    """An importable package of tool modules, removed from the import system afterwards."""
    package = tmp_path / "more_tools"
    package.mkdir()
    (package / "__init__.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    try:
        yield package
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("more_tools")]:
            del sys.modules[name]


def declare(package: Path, module: str, name: str, position: int | None) -> None:
    (package / f"{module}.py").write_text(
        "from pifold_agent.tools.protocol import ToolTraits\n"
        "from pifold_agent.tools.built_in import BuiltIn\n"
        f"class Declared:\n    name = {name!r}\n"
        f"    traits = ToolTraits(position={position!r})\n"
        "TOOL = BuiltIn(Declared)\n"
    )


def test_a_new_module_with_a_tool_is_found_in_its_position(tool_package: Path) -> None:
    declare(tool_package, "zeta", "first", 0)
    declare(tool_package, "alpha", "second", 5)
    (tool_package / "helper.py").write_text("VALUE = 1\n")  # not a tool: ignored
    found = discover("more_tools")
    assert [tool.name for tool in found] == ["first", "second"]
    assert found[1].traits == ToolTraits(position=5)
    assert found[0].build(ToolSetup()).name == "first"


@pytest.mark.parametrize(
    ("declarations", "message"),
    [
        ([("a", "one", 0), ("b", "two", 0)], "share position 0"),
        ([("a", "one", 0), ("b", "one", 1)], "two built-in tools are named 'one'"),
        ([("a", "one", None)], "declares no position"),
    ],
)
def test_a_clash_is_refused_naming_it(
    tool_package: Path, declarations: list[tuple[str, str, int | None]], message: str
) -> None:
    for module, name, position in declarations:
        declare(tool_package, module, name, position)
    with pytest.raises(ToolDeclarationError, match=message):
        discover("more_tools")
