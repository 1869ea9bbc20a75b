"""The note after a repeated call, through ``pifold -p`` with the scripted model and the real
tools: it follows a call that repeats an earlier one whose same result is still shown, and
never a call whose earlier result may be stale (a write between, a changed file), a call
with other arguments, or a command that names no files. Every session stays consistent:
the note is an append, the wire audit sees no unattributed rewrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.loop.repeats import NOTE_KEY
from tests.agent.headless_cases import assert_session_consistent, headless, newest, options_in
from tests.helpers.scripts import write_script

MAIN = "def restock_threshold(item: str) -> int:\n    return 12\n"


def call(call_id: str, name: str, **arguments: object) -> dict[str, object]:
    return {"assistant": "", "tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def run(tmp_path: Path, *steps: dict[str, object]) -> list[str]:
    """Play ``steps`` then an answer; the texts of the repeat notes, in order."""
    root = tmp_path / "run"
    work = options_in(root).cwd
    (work / "main.py").write_text(MAIN)
    script = write_script(
        tmp_path / "script.jsonl", [*steps, {"assistant": "done"}], tools="execute"
    )
    outcome = headless(options_in(root, script=script))
    assert outcome.code == 0, outcome.err
    session = newest(root)
    assert_session_consistent(session.path)
    return [
        entry.text
        for entry in session.messages()
        if entry.kind == "note" and NOTE_KEY in entry.extra
    ]


def test_a_repeated_read_is_followed_by_one_note_pointing_at_the_result(tmp_path: Path) -> None:
    notes = run(tmp_path, call("c1", "read", path="main.py"), call("c2", "read", path="main.py"))
    assert len(notes) == 1
    assert notes[0].startswith("[pifold] You already have this: the read call above repeats")
    assert "answer the user's question from that result now" in notes[0]


def test_every_further_repeat_is_noted_too(tmp_path: Path) -> None:
    steps = [call(f"c{n}", "read", path="main.py") for n in range(4)]
    assert len(run(tmp_path, *steps)) == 3


@pytest.mark.parametrize(
    "between",
    [
        # A write between: the earlier result may be stale, so the second read is a real need.
        call("w", "write", path="main.py", content=MAIN + "# changed\n"),
        # A command naming no files changed main.py behind the tools' backs: the result
        # differs, so nothing is said.
        call("b", "bash", command="echo '# more' >> main.py"),
    ],
    ids=["write", "changed-by-bash"],
)
def test_no_note_when_the_file_may_have_changed(tmp_path: Path, between: dict[str, object]) -> None:
    first, second = call("c1", "read", path="main.py"), call("c2", "read", path="main.py")
    assert run(tmp_path, first, between, second) == []


def test_no_note_for_other_arguments_or_for_commands(tmp_path: Path) -> None:
    steps = [
        call("c1", "read", path="main.py"),
        call("c2", "read", path="main.py", offset=2),
        call("c3", "bash", command="ls"),
        call("c4", "bash", command="ls"),
    ]
    assert run(tmp_path, *steps) == []
