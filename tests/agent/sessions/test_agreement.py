"""Hand edits of a session file against the engine's log (Reliability II, defect 14).

After a headless run, the session file is edited by hand (a message's text changed, a line
deleted, two lines swapped, a message added before the end); the next ``--continue`` says
so in one warning line naming the entry and the rule, the engine's log wins (the model is
sent the logged bytes, so the cache invariant holds), and the run goes on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pifold_agent.sessions import SessionFile, state_directory
from pifold_agent.sessions.agreement import RULE, compare_with_log
from pifold_core.engine import Engine
from tests.agent.headless_cases import (
    answer_script,
    headless,
    newest,
    options_in,
    write_script,
)
from tests.core.engine_checks import assert_clean_audit


def two_turns(root: Path) -> Path:
    """A session of two prompts and answers; returns its file."""
    for number in (1, 2):
        script = write_script(root, f"turn{number}.jsonl", {"assistant": f"answer {number}"})
        outcome = headless(options_in(root, prompt=f"prompt {number}", script=script,
                                      continue_session=number > 1))  # fmt: skip
        assert outcome.code == 0, outcome.err
    return newest(root).path


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def continue_after_edit(root: Path) -> tuple[list[str], Engine]:
    """``--continue``: its warning lines, and the engine afterwards (read-only)."""
    outcome = headless(options_in(root, continue_session=True, script=answer_script(root)))
    assert (outcome.code, outcome.out) == (0, "ok\n"), outcome.err
    engine = Engine.open(state_directory(newest(root).path), read_only=True)
    return outcome.err.splitlines(), engine


def test_an_edited_message_is_said_and_the_log_is_what_the_model_sees(tmp_path: Path) -> None:
    path = two_turns(tmp_path)
    lines = lines_of(path)
    edited = lines[1]  # the first prompt
    edited["message"]["content"][0]["text"] = "prompt 1, rewritten by hand"
    write_lines(path, lines)
    warnings, engine = continue_after_edit(tmp_path)
    assert len(warnings) == 1
    assert warnings[0] == (
        f"warning: session file {path} disagrees with the engine's log: entry {edited['id']} "
        f"(line 2) was edited in the session file; {RULE}"
    )
    texts = [entry.text for entry in engine.view.transcript.entries if entry.kind == "user"]
    assert texts == ["prompt 1", "prompt 2", "go"]  # the log's bytes were sent
    assert_clean_audit(engine)
    engine.close()


def test_a_deleted_line_is_said(tmp_path: Path) -> None:
    path = two_turns(tmp_path)
    lines = lines_of(path)
    deleted = lines.pop(4)  # the second answer, the last line
    write_lines(path, lines)
    warnings, engine = continue_after_edit(tmp_path)
    assert len(warnings) == 1 and f"entry {deleted['id']} is in the engine's log" in warnings[0]
    assert "not on the session file's current branch" in warnings[0]
    assert deleted["id"] in engine.view.transcript.index_of
    assert_clean_audit(engine)
    engine.close()


def test_swapped_lines_are_said(tmp_path: Path) -> None:
    path = two_turns(tmp_path)
    lines = lines_of(path)
    prompt1, answer1, prompt2, answer2 = lines[1:5]
    prompt2["parentId"], answer1["parentId"] = prompt1["id"], answer2["id"]
    lines[2:5] = [prompt2, answer2, answer1]  # answer 1 moved to the end, re-linked
    write_lines(path, lines)
    assert [entry.text for entry in SessionFile.open(path).messages()] == [
        "prompt 1", "prompt 2", "answer 2", "answer 1",
    ]  # fmt: skip
    warnings, engine = continue_after_edit(tmp_path)
    assert len(warnings) == 1 and "is out of the engine's log's order" in warnings[0]
    assert_clean_audit(engine)
    engine.close()


def test_a_message_added_before_the_end_is_said_and_not_sent(tmp_path: Path) -> None:
    path = two_turns(tmp_path)
    lines = lines_of(path)
    added = json.loads(json.dumps(lines[1]))
    added["id"], added["parentId"] = "feedface", lines[2]["id"]
    added["message"]["content"][0]["text"] = "a message the model never saw"
    lines[3]["parentId"] = "feedface"
    lines.insert(3, added)
    write_lines(path, lines)
    warnings, engine = continue_after_edit(tmp_path)
    assert len(warnings) == 1 and "entry feedface (line 4) is in the session file" in warnings[0]
    assert "feedface" not in engine.view.transcript.index_of
    assert_clean_audit(engine)
    engine.close()


def test_a_session_that_agrees_says_nothing(tmp_path: Path) -> None:
    path = two_turns(tmp_path)
    engine = Engine.open(state_directory(path), read_only=True)
    assert compare_with_log(SessionFile.open(path), engine) is None
    engine.close()
