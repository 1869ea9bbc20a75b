"""The command line as a new user meets it: every mistake is named on stderr, exits non-zero,
and changes nothing (issue 9, "Found by trying the CLI as a new user")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from pifold_cli.app import app
from pifold_core.engine import LOG_NAME
from pifold_core.lock import LOCK_NAME
from pifold_core.options import DEFAULT_BUDGET, MIN_BUDGET

RUNNER = CliRunner()


def write_session(path: Path, topic: str, steps: int = 12, first_user_chars: int = 0) -> Path:
    """A small mini-swe-agent trajectory about ``topic``: ids are positional, so two of
    them differ only in content."""
    ask = f"Fix the failing test about {topic}." + " context" * (first_user_chars // 8)
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": ask},
    ]
    for step in range(steps):
        call = f"call_{step}"
        messages.append(
            {
                "role": "assistant",
                "content": f"Step {step} on {topic}: reading a module.",
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {
                            "name": "bash",
                            "arguments": json.dumps({"command": f"cat src/{topic}_{step}.py"}),
                        },
                    }
                ],
            }
        )
        body = "\n".join(f"{line}: def {topic}_{step}_{line}(v): return v" for line in range(60))
        messages.append({"role": "tool", "tool_call_id": call, "content": body})
    messages.append({"role": "assistant", "content": f"Done with {topic}."})
    document = {"trajectory_format": "mini-swe-agent-1.1", "messages": messages, "info": {}}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (empty when it does not exist)."""
    if not folder.exists():
        return {}
    if folder.is_file():
        return {"": folder.read_bytes()}
    # The lock file names its current holder: rewritten by every open, never session state.
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and path.name != LOCK_NAME
    }


def replay(*arguments: str) -> Result:
    return RUNNER.invoke(app, ["replay", *arguments])


def assert_refused(result: Result, code: int, *phrases: str) -> None:
    """Exit ``code``, every phrase on stderr, nothing on stdout, and no traceback."""
    assert result.exit_code == code, (result.stdout, result.stderr)
    for phrase in phrases:
        assert phrase in " ".join(result.stderr.split()), result.stderr
    assert result.stdout == ""
    assert ("Traceback" not in result.stderr and result.exception is None) or isinstance(
        result.exception, SystemExit
    )


def test_a_state_folder_refuses_another_session_by_name(tmp_path: Path) -> None:
    first = write_session(tmp_path / "first.traj.json", "parser", steps=6)
    second = write_session(tmp_path / "second.traj.json", "lexer", steps=12)
    state = tmp_path / "state"
    assert replay(str(first), "--state", str(state), "--json").exit_code == 0
    before = snapshot(state)
    result = replay(str(second), "--state", str(state), "--json")
    assert_refused(result, 2, "first.traj.json", "not second.traj.json")
    assert snapshot(state) == before


def test_rerunning_a_finished_state_reports_the_whole_run(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=30)
    state = tmp_path / "state"
    arguments = [str(trace), "--state", str(state), "--budget", "6000", "--json"]
    first = json.loads(replay(*arguments).stdout)
    assert first["commits"] >= 1 and first["window"]["peak"] > 0
    again = json.loads(replay(*arguments).stdout)
    assert again == first


def test_a_resumed_run_reports_the_whole_run(tmp_path: Path) -> None:
    # The state holds the first 20 steps (the session as it was); the grown trace resumes it.
    grown = write_session(tmp_path / "t.traj.json", "parser", steps=30)
    options = ["--budget", "6000", "--json"]
    whole = json.loads(replay(str(grown), "--state", str(tmp_path / "whole"), *options).stdout)
    partial = write_session(tmp_path / "t-early.traj.json", "parser", steps=30)
    document = json.loads(partial.read_text(encoding="utf-8"))
    document["messages"] = document["messages"][: 2 + 2 * 20]
    partial.write_text(json.dumps(document), encoding="utf-8")
    state = tmp_path / "resumed"
    early = json.loads(replay(str(partial), "--state", str(state), *options).stdout)
    assert early["requests"] < whole["requests"]
    resumed = json.loads(replay(str(grown), "--state", str(state), *options).stdout)
    assert resumed == whole


def test_a_different_budget_on_resume_is_refused(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser")
    state = tmp_path / "state"
    assert replay(str(trace), "--state", str(state), "--budget", "6000").exit_code == 0
    before = snapshot(state)
    result = replay(str(trace), "--state", str(state), "--budget", "9000")
    assert_refused(result, 2, "was replayed at --budget 6000", "asked for 9000")
    assert snapshot(state) == before


def test_a_window_over_the_budget_exits_1_saying_so(tmp_path: Path) -> None:
    # The first ask alone is larger than the budget: no fold can bring it under.
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3, first_user_chars=8_000)
    result = replay(str(trace), "--budget", str(MIN_BUDGET), "--json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["over_budget"] >= 1
    assert "over the budget even after overflow recovery" in result.stderr


@pytest.mark.parametrize("command", ["replay", "demo", "bench"])
def test_a_budget_under_the_floor_is_refused(tmp_path: Path, command: str) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser")
    arguments = [command] if command == "demo" else [command, str(trace)]
    result = RUNNER.invoke(app, [*arguments, "--budget", str(MIN_BUDGET - 1)])
    if command == "demo":  # the demo says what it is before it starts
        result.stdout_bytes = b""
    assert_refused(result, 2, f"--budget must be from {MIN_BUDGET:,} to 10,000,000 tokens")


def test_the_budget_floor_itself_is_accepted(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    result = replay(str(trace), "--budget", str(MIN_BUDGET), "--json")
    assert json.loads(result.stdout)["window"]["budget"] == MIN_BUDGET


@pytest.mark.parametrize(
    ("log", "phrase"),
    [
        (b"hello, not a log\n", "is not a pifold session log"),
        (b"", None),  # an empty log is a session never started: it starts
    ],
)
def test_a_junk_log_is_reported_and_left_alone(
    tmp_path: Path, log: bytes, phrase: str | None
) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    state = tmp_path / "state"
    state.mkdir()
    (state / LOG_NAME).write_bytes(log)
    result = replay(str(trace), "--state", str(state))
    if phrase is None:
        assert result.exit_code == 0, result.stderr
        return
    assert_refused(result, 2, phrase, "use another --state folder")
    assert (state / LOG_NAME).read_bytes() == log


def test_a_log_damaged_inside_is_reported_and_left_alone(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    state = tmp_path / "state"
    assert replay(str(trace), "--state", str(state)).exit_code == 0
    lines = (state / LOG_NAME).read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"k"', b'"K"')
    (state / LOG_NAME).write_bytes(b"".join(lines))
    before = snapshot(state)
    result = replay(str(trace), "--state", str(state), "--json")
    assert_refused(result, 2, "cannot be reopened", "line 3")
    assert snapshot(state) == before


def test_a_torn_last_line_is_reported(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    state = tmp_path / "state"
    assert replay(str(trace), "--state", str(state)).exit_code == 0
    with open(state / LOG_NAME, "ab") as handle:
        handle.write(b'{"n": 999, "k": "entr')
    result = replay(str(trace), "--state", str(state), "--json")
    assert result.exit_code == 0, result.stderr
    assert "warning: the state's log ended in a torn line" in result.stderr
    assert "torn line" in json.loads(result.stdout)["torn_tail"]


def test_a_window_out_into_a_missing_folder_is_a_write_failure(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    state = tmp_path / "state"
    target = tmp_path / "missing" / "window.json"
    result = replay(str(trace), "--state", str(state), "--window-out", str(target))
    assert_refused(result, 2, f"cannot write --window-out {target}", "does not exist")
    assert "cannot read" not in result.stderr
    assert not state.exists() and not target.parent.exists()


def test_a_state_that_is_a_file_is_a_write_failure(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    state = tmp_path / "state.txt"
    state.write_bytes(b"my notes")
    result = replay(str(trace), "--state", str(state))
    assert_refused(result, 2, f"--state {state} is a file, not a folder")
    assert "cannot read" not in result.stderr
    assert state.read_bytes() == b"my notes"


def test_errors_go_to_stderr_in_table_mode(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    assert_refused(replay(str(missing)), 2, "cannot be read")
    assert_refused(replay(str(tmp_path)), 2, "not a regular file")


def test_a_header_only_session_exits_2(tmp_path: Path) -> None:
    trace = tmp_path / "session.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-12-01T10:00:00Z"}
    trace.write_text(json.dumps({**header, "cwd": "/work"}) + "\n", encoding="utf-8")
    result = replay(str(trace), "--json")
    assert_refused(result, 2, "nothing to replay")


@pytest.mark.parametrize("command", ["replay", "bench"])
def test_a_fifo_as_the_trace_is_refused_without_waiting(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "trace.jsonl"
    os.mkfifo(fifo)
    # A child process, so a regression that blocks on the FIFO fails on the timeout.
    code = f"from pifold_cli.app import app; app({[command, str(fifo)]!r})"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert "not a regular file" in result.stderr
    assert "Traceback" not in result.stderr


def test_bench_refuses_an_invalid_settings_file(tmp_path: Path, isolated_settings: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    settings = isolated_settings / "pi-fold" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"thresholds": {"maxTarget": 0.1, "minTarget": 0.5}}))
    result = RUNNER.invoke(app, ["bench", str(trace)])
    assert_refused(result, 2, "minTarget")


def test_bench_refuses_a_plant_beyond_what_the_trace_holds(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    result = RUNNER.invoke(app, ["bench", str(trace), "--plant", "50", "--arms", "fold"])
    assert_refused(result, 2, "--plant 50", "has room for 3 planted values")


def test_bench_svg_out_into_a_missing_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    target = tmp_path / "missing" / "x.svg"
    result = RUNNER.invoke(app, ["bench", str(trace), "--svg-out", str(target)])
    assert_refused(result, 2, f"cannot write --svg-out {target}", "does not exist")


def test_one_default_budget_everywhere(tmp_path: Path) -> None:
    assert DEFAULT_BUDGET == 100_000
    shown = json.loads(RUNNER.invoke(app, ["settings", "show", "--json"]).stdout)
    assert shown["options"]["providerInputBudget"] == DEFAULT_BUDGET
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=3)
    report = json.loads(replay(str(trace), "--json").stdout)
    assert report["window"]["budget"] == DEFAULT_BUDGET
    bench = json.loads(RUNNER.invoke(app, ["bench", str(trace), "--json", "--arms", "fold"]).stdout)
    assert bench["budget"] == DEFAULT_BUDGET


def test_bench_runs_the_fold_arm_under_the_settings_file(
    tmp_path: Path, isolated_settings: Path
) -> None:
    trace = write_session(tmp_path / "t.traj.json", "parser", steps=30)
    arguments = ["bench", str(trace), "--json", "--arms", "fold", "--budget", "6000"]

    def fold_figures() -> dict[str, object]:
        result = RUNNER.invoke(app, [*arguments, "--no-sensitivity"])
        assert result.exit_code == 0, result.stderr
        figures: dict[str, object] = json.loads(result.stdout)["traces"][0]["arms"]["fold"]
        return figures

    defaults = fold_figures()
    settings = isolated_settings / "pi-fold" / "settings.json"
    settings.parent.mkdir(parents=True)
    band = {"maxTarget": 0.5, "minTarget": 0.1, "consolidateAfter": 10, "minFoldChars": 8000}
    settings.write_text(json.dumps({"thresholds": band}), encoding="utf-8")
    lower_band = fold_figures()
    # Another band moves the commits (at half the budget the runway rule holds some back,
    # so fewer land): the fold arm ran under the file's band, not the default one.
    figures = ("events", "peak_window", "mean_window")
    assert [lower_band[name] for name in figures] != [defaults[name] for name in figures]
    assert lower_band["events"] != defaults["events"]
