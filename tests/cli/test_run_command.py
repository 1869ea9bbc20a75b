"""``pifold -p``: the headless run's output, exit codes, sessions and refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pifold_agent.provider_choice import NO_KEY_HELP
from pifold_agent.run_input import HeadlessOptions
from pifold_agent.sessions import latest_for
from pifold_cli.run_command import run_headless
from pifold_core.engine import Engine
from tests.helpers.scripts import write_script


def script(path: Path, *lines: dict[str, object]) -> Path:
    return write_script(path / "script.jsonl", lines, tools="recorded")


def looked(path: Path) -> Path:
    return script(
        path,
        {"assistant": "Let me look.", "tool_calls": [{"id": "c1", "name": "ls", "arguments": {}}]},
        {"tool_result": "a.txt\nb.txt", "call_id": "c1"},
        {"assistant": "Two files: a.txt and b.txt."},
    )


def run(options: HeadlessOptions, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_headless(options, io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def options(tmp_path: Path, **fields: object) -> HeadlessOptions:
    values: dict[str, object] = {"cwd": tmp_path, "sessions_dir": tmp_path / "sessions"}
    values.update(fields)
    return HeadlessOptions(**values)  # type: ignore[arg-type]


def test_no_key_and_no_base_url_says_how_to_set_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, out, err = run(options(tmp_path, prompt="hello"))
    assert code == 2 and out == ""
    assert err == f"error: {NO_KEY_HELP}\n"
    assert not (tmp_path / "sessions").exists()


def test_a_scripted_run_prints_the_answer_and_records_the_session(tmp_path: Path) -> None:
    code, out, err = run(options(tmp_path, prompt="what is here?", script=looked(tmp_path)))
    assert (code, out, err) == (0, "Two files: a.txt and b.txt.\n", "")

    session = latest_for(tmp_path, tmp_path / "sessions")
    assert session is not None
    kinds = [entry.kind for entry in session.messages()]
    assert kinds == ["user", "assistant", "tool_result", "assistant"]
    engine = Engine.open(session.state_directory, read_only=True)
    assert [entry.id for entry in engine.view.transcript.entries] == [
        entry.id for entry in session.messages()
    ]
    assert engine.view.audit_counts.unattributed == 0
    engine.close()


def test_json_streams_every_event_as_a_line(tmp_path: Path) -> None:
    code, out, _ = run(
        options(tmp_path, prompt="what is here?", script=looked(tmp_path), as_json=True)
    )
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    types = [event["type"] for event in events]
    # The fixed prefix's line comes before the first event (issue 22).
    assert types[:2] == ["prefix", "run_start"] and types[-1] == "run_end"
    assert events[0]["tokens"] > 0 and events[0]["floor"] is None
    assert events[-1]["final_text"] == "Two files: a.txt and b.txt."
    # The session's cache figures ride on run_end: the unexplained misses first among them.
    assert events[-1]["cache"]["unexplained"] == 0 and events[-1]["cache"]["misses"] == 0
    assert {"turn_start", "message_update", "tool_execution_start", "tool_execution_end"} <= set(
        types
    )


def test_piped_stdin_is_the_first_message(tmp_path: Path) -> None:
    code, _, _ = run(
        options(tmp_path, prompt="summarise it", script=looked(tmp_path)), stdin="a log\n"
    )
    assert code == 0
    session = latest_for(tmp_path, tmp_path / "sessions")
    assert session is not None
    users = [entry.text for entry in session.messages() if entry.kind == "user"]
    assert users == ["a log\n", "summarise it"]


def test_continue_resumes_the_newest_session(tmp_path: Path) -> None:
    path = script(tmp_path, {"assistant": "First answer."})
    assert run(options(tmp_path, prompt="one", script=path))[0] == 0
    path = script(tmp_path, {"assistant": "Second answer."})
    code, out, _ = run(options(tmp_path, prompt="two", script=path, continue_session=True))
    assert (code, out) == (0, "Second answer.\n")
    session = latest_for(tmp_path, tmp_path / "sessions")
    assert session is not None
    assert [entry.text for entry in session.messages()] == [
        "one",
        "First answer.",
        "two",
        "Second answer.",
    ]
    engine = Engine.open(session.state_directory, read_only=True)
    assert len(engine.view.transcript.entries) == 4
    engine.close()


def test_refusals_name_what_is_wrong(tmp_path: Path) -> None:
    path = looked(tmp_path)
    code, _, err = run(options(tmp_path, prompt="x", script=path, continue_session=True))
    assert code == 2 and "no session to continue" in err and "--yes" in err
    code, _, err = run(options(tmp_path, prompt="x", script=path, resume="feedface"))
    assert code == 2 and "feedface" in err
    code, _, err = run(options(tmp_path, prompt="x", script=path, budget=0))
    assert code == 2 and "--budget must be from 1,000 to 10,000,000 tokens, got 0" in err
    code, _, err = run(options(tmp_path, prompt="x", script=tmp_path / "missing.jsonl"))
    assert code == 2 and "missing.jsonl" in err
    code, _, err = run(options(tmp_path, prompt="  "))
    assert code == 2 and "empty" in err


def test_a_failed_run_exits_one_with_the_message(tmp_path: Path) -> None:
    path = script(
        tmp_path,
        {"error": "fatal", "message": "invalid x-api-key"},
        {"assistant": "never played"},
    )
    code, out, err = run(options(tmp_path, prompt="hello", script=path))
    assert (code, out) == (1, "")
    assert err == "error: invalid x-api-key\n"


def test_no_fold_runs_on_the_session_alone(tmp_path: Path) -> None:
    code, out, _ = run(
        options(tmp_path, prompt="what is here?", script=looked(tmp_path), no_fold=True)
    )
    assert (code, out) == (0, "Two files: a.txt and b.txt.\n")
    session = latest_for(tmp_path, tmp_path / "sessions")
    assert session is not None
    assert [entry.kind for entry in session.messages()] == [
        "user",
        "assistant",
        "tool_result",
        "assistant",
    ]
    assert not (session.state_directory / "fold-log.jsonl").exists()


def test_a_session_open_elsewhere_is_refused_without_a_traceback(tmp_path: Path) -> None:
    assert run(options(tmp_path, prompt="one", script=looked(tmp_path)))[0] == 0
    session = latest_for(tmp_path, tmp_path / "sessions")
    assert session is not None
    holder = Engine.open(session.state_directory)  # another writer holds the session
    try:
        code, out, err = run(
            options(tmp_path, prompt="two", script=looked(tmp_path), continue_session=True)
        )
    finally:
        holder.close()
    assert (code, out) == (2, "")
    assert err.startswith("error: cannot open the session's engine state")
    assert "already open for writing" in err and "Traceback" not in err


def test_retries_say_on_stderr_why_the_run_waits(tmp_path: Path) -> None:
    path = script(
        tmp_path,
        {"error": "transient", "message": "overloaded", "retry_after_s": 0.01},
        {"assistant": "Back."},
    )
    code, out, err = run(options(tmp_path, prompt="hello", script=path))
    assert (code, out) == (0, "Back.\n")
    assert err == "retrying in 0.0 s (attempt 1): overloaded\n"
