"""``@`` completion of a path with a space (issue 13): it goes in the way it is read back. In
a message it is a quoted mention, ``@"my notes.md"``, which the file tools open; in a
``!command`` line it is one shell word, ``'my notes.md'``, which the shell opens."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.loop import ToolContext
from pifold_agent.tools.arguments import resolve_path
from pifold_agent.tools.bash import BashTool
from pifold_agent.tools.read import ReadTool
from pifold_tui.app.prompt.completion import mention, replacement_for
from tests.ui.app.test_prompt_harness import PromptHarness, typed

NOTES = "the notes, read back whole\n"


def repository(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "my notes.md").write_text(NOTES, encoding="utf-8")
    (root / "my dir").mkdir()
    (root / "my dir" / "inner.txt").write_text("", encoding="utf-8")
    (root / "plain.md").write_text("", encoding="utf-8")
    return root


def quiet(text: str) -> None:
    """A tool's partial output: not needed here."""


async def completed(root: Path, text: str) -> str:
    """What the prompt holds after typing ``text`` and accepting the first path offered."""
    app = PromptHarness(root)
    async with app.run_test() as pilot:
        await typed(pilot, app.prompt, text)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.prompt.popup.is_open
        await pilot.press("tab")
        await pilot.pause()
        return app.prompt.text


async def test_a_path_with_a_space_becomes_a_quoted_mention_the_read_tool_opens(
    tmp_path: Path,
) -> None:
    root = repository(tmp_path / "repo")
    text = await completed(root, "summarise @notes")
    assert text == 'summarise @"my notes.md" '
    mentioned = text.removeprefix("summarise ").strip()
    outcome = await ReadTool().run({"path": mentioned}, ToolContext("read1", root, quiet))
    assert not outcome.is_error and outcome.text == NOTES


async def test_in_a_shell_line_the_path_is_one_shell_word_without_the_at(
    tmp_path: Path,
) -> None:
    root = repository(tmp_path / "repo")
    text = await completed(root, "!cat @notes")
    assert text == "!cat 'my notes.md' "
    command = text.removeprefix("!").strip()
    outcome = await BashTool().run({"command": command}, ToolContext("shell", root, quiet))
    assert outcome.text.startswith(NOTES.rstrip("\n"))
    assert outcome.details.get("exitCode") in (0, None)


async def test_a_plain_path_is_inserted_bare_as_before(tmp_path: Path) -> None:
    root = repository(tmp_path / "repo")
    assert await completed(root, "see @plain") == "see @plain.md "


def test_a_quoted_folder_does_not_claim_to_list_its_entries() -> None:
    # Completion reads a bare @word; a quoted folder ends the completion instead.
    assert replacement_for("my dir/", False) == ('@"my dir/"', False)
    assert replacement_for("src/", False) == ("@src/", True)
    assert replacement_for("my dir/", True) == ("'my dir/'", False)


path_parts = st.text(
    # Plain spaces only: the tools read the unusual Unicode spaces as plain ones.
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), whitelist_characters=" "
    ),
    min_size=1,
    max_size=12,
).filter(lambda part: "/" not in part and part.strip() == part and part not in (".", ".."))


@settings(max_examples=100, deadline=None)
@given(name=path_parts)
def test_every_mention_reads_back_as_the_path_itself(name: str) -> None:
    if "'" in name and '"' in name:
        return  # no one kind of quote holds both (such names are not quoted correctly)
    if name.startswith("~"):
        return  # the tools expand ~ whether quoted or not (and ~unknown raises: noted)
    root = Path("/work")
    assert resolve_path(mention(name), root) == root / name
    assert " " not in mention(name) or mention(name)[1] in "\"'"  # a space is always quoted
