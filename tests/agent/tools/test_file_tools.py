"""read, write, edit and ls on real temporary folders."""

from __future__ import annotations

import base64
import stat
from pathlib import Path

from pifold_agent.tools import EditTool, LsTool, ReadTool, WriteTool, builtin_tools
from pifold_agent.tools.edit import normalise_for_matching
from tests.agent.tools.helpers import run

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def numbered(count: int) -> str:
    return "\n".join(f"line {number}" for number in range(1, count + 1))


async def test_read_shows_lines_and_says_where_to_continue(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(numbered(2500))
    outcome = await run(ReadTool(), tmp_path, path="big.txt")
    assert not outcome.is_error
    body, notice = outcome.text.rsplit("\n\n", 1)
    assert body.split("\n")[-1] == "line 2000"
    assert notice == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    rest = await run(ReadTool(), tmp_path, path="big.txt", offset=2001)
    assert rest.text.split("\n")[0] == "line 2001" and rest.text.endswith("line 2500")


async def test_read_with_a_limit_counts_what_remains(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(numbered(10))
    outcome = await run(ReadTool(), tmp_path, path="@a.txt", offset=3, limit=4)
    assert (
        outcome.text
        == "line 3\nline 4\nline 5\nline 6\n\n[4 more lines in file. Use offset=7 to continue.]"
    )


async def test_read_names_the_byte_limit_and_long_lines(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("\n".join(["w" * 199] * 400))  # 200 bytes a line
    outcome = await run(ReadTool(), tmp_path, path="wide.txt")
    assert outcome.text.endswith(
        "[Showing lines 1-256 of 400 (50.0KB limit). Use offset=257 to continue.]"
    )
    (tmp_path / "one.txt").write_text("ok\n" + "q" * 60_000)
    long_line = await run(ReadTool(), tmp_path, path="one.txt", offset=2)
    assert long_line.text == (
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' one.txt | head -c 51200]"
    )


async def test_read_errors_and_images(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo")
    beyond = await run(ReadTool(), tmp_path, path="a.txt", offset=5)
    assert beyond.is_error and beyond.text == "Offset 5 is beyond end of file (2 lines total)"
    missing = await run(ReadTool(), tmp_path, path="nope.txt")
    assert missing.is_error and missing.text == "File not found: nope.txt"
    bad = await run(ReadTool(), tmp_path, path="a.txt", offset=0)
    assert bad.is_error and "'offset' must be at least 1" in bad.text
    (tmp_path / "picture.dat").write_bytes(PNG)
    image = await run(ReadTool(), tmp_path, path="picture.dat")
    assert image.text == "Read image file [image/png]"
    assert image.images[0].media_type == "image/png"
    assert base64.b64decode(image.images[0].data) == PNG


async def test_a_fold_id_is_never_read_as_a_path(tmp_path: Path) -> None:
    outcome = await run(ReadTool(), tmp_path, path="fold-0123456789ab")
    assert outcome.is_error and "is an id of the context engine" in outcome.text
    assert "pi_fold_context" in outcome.text
    # A real file of that name is a file like any other.
    (tmp_path / "fold-0123456789ab").write_text("real")
    assert (await run(ReadTool(), tmp_path, path="fold-0123456789ab")).text == "real"


async def test_paths_outside_the_working_directory_are_allowed(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("hello")
    (tmp_path / "work").mkdir()
    outcome = await run(ReadTool(), tmp_path / "work", path="../outside.txt")
    assert outcome.text == "hello"


async def test_write_creates_folders_replaces_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    outcome = await run(WriteTool(), tmp_path, path="deep/er/x.py", content="print('é')\n")
    assert outcome.text == "Successfully wrote 11 bytes to deep/er/x.py"
    target = tmp_path / "deep" / "er" / "x.py"
    assert target.read_text() == "print('é')\n"
    target.chmod(0o750)
    await run(WriteTool(), tmp_path, path="deep/er/x.py", content="new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o750
    assert sorted(path.name for path in target.parent.iterdir()) == ["x.py"]
    refused = await run(WriteTool(), tmp_path, path="deep", content="x")
    assert refused.is_error and refused.text == "deep is a directory"


async def test_edit_replaces_once_and_returns_a_unified_diff(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def a():\n    return 1\n\ndef b():\n    return 2\n")
    outcome = await run(EditTool(), tmp_path, path="m.py", oldText="return 2", newText="return 3")
    assert outcome.text == "Successfully replaced text in m.py." and not outcome.is_error
    assert (tmp_path / "m.py").read_text().endswith("return 3\n")
    diff = outcome.details["diff"]
    assert isinstance(diff, str)
    assert "--- a/m.py\n+++ b/m.py\n" in diff and "-    return 2\n+    return 3\n" in diff
    assert outcome.details["firstChangedLine"] == 5 and outcome.details["fuzzyMatch"] is False


async def test_edit_keeps_crlf_and_the_byte_order_mark(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes("\ufeffone\r\ntwo\r\n".encode())
    await run(EditTool(), tmp_path, path="w.txt", oldText="two\n", newText="2\nthree\n")
    assert (tmp_path / "w.txt").read_bytes() == "\ufeffone\r\n2\r\nthree\r\n".encode()


async def test_edit_matches_fuzzily_across_quotes_dashes_and_trailing_spaces(
    tmp_path: Path,
) -> None:
    (tmp_path / "q.txt").write_text("say \u201chi\u201d \u2014 now   \nend\n")
    outcome = await run(
        EditTool(), tmp_path, path="q.txt", oldText='say "hi" - now\nend', newText="done"
    )
    assert not outcome.is_error and outcome.details["fuzzyMatch"] is True
    assert (tmp_path / "q.txt").read_text() == "done\n"
    assert normalise_for_matching("a\u00a0b\u2019  ") == "a b'"


async def test_edit_refusals_change_nothing(tmp_path: Path) -> None:
    (tmp_path / "r.txt").write_text("x = 1\nx = 1\n")
    before = (tmp_path / "r.txt").read_bytes()
    twice = await run(EditTool(), tmp_path, path="r.txt", oldText="x = 1", newText="x = 2")
    assert twice.is_error and twice.text.startswith("Found 2 occurrences of the text in r.txt.")
    absent = await run(EditTool(), tmp_path, path="r.txt", oldText="y = 1", newText="y")
    assert absent.is_error and absent.text.startswith("Could not find the exact text in r.txt.")
    same = await run(EditTool(), tmp_path, path="r.txt", oldText="x = 1\nx", newText="x = 1\nx")
    assert same.is_error and same.text.startswith("No changes made to r.txt")
    missing = await run(EditTool(), tmp_path, path="gone.txt", oldText="a", newText="b")
    assert missing.is_error and missing.text == "File not found: gone.txt"
    no_argument = await run(EditTool(), tmp_path, path="r.txt", oldText="x")
    assert no_argument.is_error and no_argument.text == "edit: missing required argument 'newText'"
    assert (tmp_path / "r.txt").read_bytes() == before


async def test_ls_sorts_regardless_of_case_and_marks_folders(tmp_path: Path) -> None:
    for name in ("b.txt", "A.txt", ".hidden", "c"):
        (tmp_path / name).write_text("") if name != "c" else (tmp_path / name).mkdir()
    outcome = await run(LsTool(), tmp_path)
    assert outcome.text == ".hidden\nA.txt\nb.txt\nc/"
    limited = await run(LsTool(), tmp_path, limit=2)
    assert limited.text == ".hidden\nA.txt\n\n[2 entries limit reached. Use limit=4 for more]"
    assert (await run(LsTool(), tmp_path, path="c")).text == "(empty directory)"
    assert (await run(LsTool(), tmp_path, path="zz")).text == "Path not found: zz"
    assert (await run(LsTool(), tmp_path, path="b.txt")).text == "Not a directory: b.txt"


def test_the_tool_set_has_a_fixed_order_and_valid_schemas() -> None:
    tools = builtin_tools(["ls", "read", "bash"])
    assert [tool.name for tool in tools] == ["read", "bash", "ls"]
    for tool in builtin_tools():
        assert tool.parameters["type"] == "object" and tool.description
        required = tool.parameters["required"]
        properties = tool.parameters["properties"]
        assert isinstance(required, list) and isinstance(properties, dict)
        assert set(map(str, required)) <= set(properties)
