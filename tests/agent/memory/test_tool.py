"""The ``memory`` tool: Anthropic's commands, their result texts, and refusals that change
nothing; declared as Anthropic's native type, a function tool elsewhere."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pifold_agent.loop.system_prompt import prompt_head_digest, tool_specs
from pifold_agent.memory.store import MemoryStore
from pifold_agent.memory.texts import human_size
from pifold_agent.memory.tool import ANTHROPIC_TYPE, MemoryTool
from pifold_agent.providers.anthropic_messages import build_body
from pifold_agent.providers.base import ProviderRequest
from pifold_agent.providers.openai_chat import build_body as chat_body
from pifold_agent.tools.protocol import ToolContext, ToolOutcome
from pifold_core.canonical import JsonValue


def call(tool: MemoryTool, **arguments: JsonValue) -> ToolOutcome:
    context = ToolContext("c1", Path.cwd(), lambda _: None)
    return asyncio.run(tool.run(dict(arguments), context))


@pytest.fixture
def tool(tmp_path: Path) -> MemoryTool:
    return MemoryTool(MemoryStore(tmp_path / "project", tmp_path / "user"))


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def test_create_view_edit_insert_rename_delete(tool: MemoryTool) -> None:
    created = call(tool, command="create", path="/memories/db.md", file_text="paths: db.py\nA\nB\n")
    assert created.text == "File created successfully at: /memories/db.md"
    assert call(tool, command="create", path="/memories/db.md", file_text="x").is_error
    viewed = call(tool, command="view", path="/memories/db.md")
    assert viewed.text == (
        "Here's the content of /memories/db.md with line numbers:\n"
        "     1\tpaths: db.py\n     2\tA\n     3\tB"
    )
    assert viewed.details["memory"]["version"]
    ranged = call(tool, command="view", path="/memories/db.md", view_range=[2, 2])
    assert ranged.text.endswith("     2\tA") and "version" not in ranged.details["memory"]
    edited = call(tool, command="str_replace", path="/memories/db.md", old_str="A", new_str="AA")
    assert edited.text == (
        "The memory file has been edited. Here is the snippet showing the change (with line "
        "numbers):\n     1\tpaths: db.py\n     2\tAA\n     3\tB\n     4\t"
    )
    inserted = call(tool, command="insert", path="/memories/db.md", insert_line=1, insert_text="Z")
    assert inserted.text == "The file /memories/db.md has been edited."
    assert tool.store.read("/memories/db.md").text == "paths: db.py\nZ\nAA\nB\n"
    renamed = call(
        tool, command="rename", old_path="/memories/db.md", new_path="/memories/user/db.md"
    )
    assert renamed.text == "Successfully renamed /memories/db.md to /memories/user/db.md"
    listing = call(tool, command="view", path="/memories")
    assert listing.text == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
        "items:\n20B\t/memories\n20B\t/memories/user/\n20B\t/memories/user/db.md"
    )
    assert call(tool, command="delete", path="/memories/user/db.md").text == (
        "Successfully deleted /memories/user/db.md"
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"command": "explode", "path": "/memories/a.md"},
        {"command": "create", "path": "/etc/passwd", "file_text": "x"},
        {"command": "create", "path": "/memories/../escape.md", "file_text": "x"},
        {"command": "create", "path": "/memories/a.md"},
        {"command": "create", "path": "/memories/a.md", "file_text": 7},
        {"command": "create", "path": "/memories/big.md", "file_text": "x" * 40_000},
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "zz", "new_str": "y"},
        {"command": "str_replace", "path": "/memories/a.md", "old_str": "o", "new_str": "y"},
        {"command": "insert", "path": "/memories/a.md", "insert_line": 9, "insert_text": "y"},
        {"command": "insert", "path": "/memories/a.md", "insert_line": "1", "insert_text": "y"},
        {"command": "view", "path": "/memories/a.md", "view_range": [5, 9]},
        {"command": "view", "path": "/memories/missing.md"},
        {"command": "delete", "path": "/memories"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": "/tmp/a.md"},
    ],
)
def test_bad_arguments_give_an_error_and_change_nothing(
    tool: MemoryTool, tmp_path: Path, arguments: dict[str, JsonValue]
) -> None:
    tool.store.write("/memories/a.md", "one\ntwo\n")
    before = snapshot(tmp_path)
    outcome = call(tool, **arguments)
    assert outcome.is_error and outcome.text
    assert snapshot(tmp_path) == before


def test_native_type_on_anthropic_function_tool_elsewhere(tool: MemoryTool) -> None:
    specs = tool_specs([tool])
    request = ProviderRequest(system="s", messages=[], tools=specs)
    assert build_body(request, "claude", 1000)["tools"] == [
        {"type": ANTHROPIC_TYPE, "name": "memory"}
    ]
    function = chat_body(request, "gpt", True)["tools"][0]["function"]
    assert function["name"] == "memory"
    assert function["parameters"]["properties"]["command"]["enum"][0] == "view"
    plain = tool_specs([tool])[0]
    assert prompt_head_digest("s", specs) != prompt_head_digest(
        "s", [type(plain)(plain.name, plain.description, plain.parameters)]
    )


def test_a_listing_shows_two_levels_folders_with_a_slash(tool: MemoryTool) -> None:
    tool.store.write("/memories/a.md", "x" * 2048)
    tool.store.write("/memories/topic/b.md", "b\n")
    tool.store.write("/memories/topic/deeper/c.md", "c\n")
    tool.store.write("/memories/topic/deeper/deepest/d.md", "d\n")
    listing = call(tool, command="view", path="/memories/topic").text.splitlines()
    assert listing[1:] == [
        "6B\t/memories/topic",
        "2B\t/memories/topic/b.md",
        "4B\t/memories/topic/deeper/",
        "2B\t/memories/topic/deeper/c.md",
        "2B\t/memories/topic/deeper/deepest/",
    ]
    assert call(tool, command="view", path="/memories").text.splitlines()[2] == "2K\t/memories/a.md"


def test_a_replace_shows_two_lines_either_side(tool: MemoryTool) -> None:
    tool.store.write("/memories/n.md", "".join(f"line {n}\n" for n in range(1, 10)))
    edited = call(tool, command="str_replace", path="/memories/n.md", old_str="e 5", new_str="E")
    assert edited.text.splitlines()[1:] == [
        "     3\tline 3",
        "     4\tline 4",
        "     5\tlinE",
        "     6\tline 6",
        "     7\tline 7",
    ]


def test_errors_read_as_anthropics_own_client_writes_them(tool: MemoryTool) -> None:
    tool.store.write("/memories/a.md", "one\ntwo\n")
    assert call(tool, command="create", path="/memories/a.md", file_text="x").text == (
        "File /memories/a.md already exists"
    )
    bad_line = call(tool, command="insert", path="/memories/a.md", insert_line=9, insert_text="y")
    assert (
        bad_line.text == "Invalid `insert_line` parameter: 9. It should be within the range [0, 2]."
    )


@pytest.mark.parametrize("count", [0, 1, 512, 1023, 1024, 1536, 2048, 10**6, 5 * 2**30, 2**42])
def test_sizes_print_as_the_reference_listing_prints_them(count: int) -> None:
    from anthropic.lib.tools._beta_builtin_memory_tool import _format_file_size

    assert human_size(count) == _format_file_size(count)
