"""Headless runs in-process, the sessions they leave, and the checks on what a refusal says.

Shared by the focused tests of ``pifold -p``'s error paths and by the fault harness's
``agent: headless errors`` and ``agent: two writers`` categories: a run is
:func:`~pifold_cli.run_command.run_headless` on in-memory streams (stdin as bytes, as a
pipe gives them), the provider is the scripted one, and a session is checked the way every
driven session is (zero unattributed rewrites, every fold peeking back its source, the
engine holding exactly the session's messages).
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pifold_agent.run_input import HeadlessOptions
from pifold_agent.sessions import SessionFile, latest_for, state_directory
from pifold_cli.run_command import run_headless
from pifold_core.engine import Engine
from tests.core.engine_checks import assert_clean_audit, assert_lossless
from tests.helpers.scripts import write_script as script_file
from tests.helpers.sessions import assert_engine_holds

RECORDED = {"script": "pifold", "version": 1, "tools": "recorded"}
"""A script header whose tool calls are answered with the recorded results."""

FOLDING_BUDGET = 20_000
"""A budget at which :func:`folding_script`'s session commits folds."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one headless run printed and returned."""

    code: int
    out: str
    err: str


@contextmanager
def scoped_environment(values: dict[str, str]) -> Iterator[None]:
    """The environment with ``values`` set, as it was afterwards."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def write_script(folder: Path, name: str, *lines: dict[str, object]) -> Path:
    """A scripted provider's script file of ``lines`` under ``folder``, its tool calls
    answered with their recorded results."""
    return script_file(folder / name, lines, **RECORDED)


def answer_script(folder: Path, text: str = "ok") -> Path:
    """A script whose model answers once with ``text``."""
    name = f"answer-{hashlib.sha256(text.encode()).hexdigest()[:12]}.jsonl"
    return write_script(folder, name, {"assistant": text})


def folding_script(folder: Path, steps: int = 12) -> Path:
    """A script of ``steps`` reads with results large enough to fold at FOLDING_BUDGET."""
    lines: list[dict[str, object]] = []
    for step in range(steps):
        call = {"id": f"c{step}", "name": "read", "arguments": {"path": f"f{step}.py"}}
        lines.append({"assistant": f"step {step}", "tool_calls": [call]})
        body = "\n".join(f"line {step}.{row}: value {row * step}" for row in range(600))
        lines.append({"tool_result": body, "call_id": f"c{step}"})
    lines.append({"assistant": "done"})
    return write_script(folder, "folding.jsonl", *lines)


def options_in(root: Path, **fields: object) -> HeadlessOptions:
    """``pifold -p`` options working in ``root/work`` with sessions under ``root``."""
    work = root / "work"
    work.mkdir(parents=True, exist_ok=True)
    values: dict[str, object] = {"prompt": "go", "cwd": work, "sessions_dir": root / "sessions"}
    values.update(fields)
    return HeadlessOptions(**values)  # type: ignore[arg-type]


def headless(options: HeadlessOptions, stdin: bytes | None = None) -> Outcome:
    """One run in-process; ``stdin`` is piped bytes (``None``: a terminal, nothing piped)."""
    out, err = io.StringIO(), io.StringIO()
    stream = _Terminal() if stdin is None else io.TextIOWrapper(io.BytesIO(stdin), "utf-8")
    code = run_headless(options, stream, out, err)
    return Outcome(code, out.getvalue(), err.getvalue())


class _Terminal(io.StringIO):
    """Stdin as a terminal: nothing is piped."""

    def isatty(self) -> bool:
        return True


def newest(root: Path) -> SessionFile:
    """The newest session of ``root``'s working directory."""
    session = latest_for(root / "work", root / "sessions")
    assert session is not None, "no session was recorded"
    return session


def refusal_problems(outcome: Outcome, code: int = 2, *phrases: str) -> list[str]:
    """What is wrong with a refusal: the exit code, a traceback, more than one line on
    stderr (warnings aside), output on stdout, or a phrase it should say and does not."""
    problems = []
    if outcome.code != code:
        problems.append(f"exit {outcome.code}, not {code}: {outcome.err.strip()[:300]}")
    if "Traceback" in outcome.err:
        problems.append("a traceback on stderr")
    errors = [line for line in outcome.err.splitlines() if not line.startswith("warning: ")]
    if len(errors) != 1 or not errors[0].startswith("error: "):
        problems.append(f"stderr is not one error line: {outcome.err[:300]!r}")
    if "internal error" in outcome.err or "a bug" in outcome.err:
        problems.append(f"an unexpected failure: {outcome.err[:300]}")
    if outcome.out:
        problems.append(f"stdout is not empty: {outcome.out[:100]!r}")
    flat = " ".join(outcome.err.split())
    problems += [f"stderr does not say {phrase!r}" for phrase in phrases if phrase not in flat]
    return problems


def assert_session_consistent(session_path: Path, log_may_lag: bool = False) -> None:
    """The session's engine state (when it has one) agrees with its file: zero unattributed
    rewrites, every fold verified, and the engine holding exactly the file's messages (a
    first part of them when ``log_may_lag``: ``--no-fold`` runs write the file alone, and
    the next folding run catches the log up)."""
    state = state_directory(session_path)
    if not (state / "fold-log.jsonl").exists():
        return  # a --no-fold session: the file is its only record
    engine = Engine.open(state, read_only=True)
    try:
        assert_clean_audit(engine)
        assert_lossless(engine)
        assert_engine_holds(engine, SessionFile.open(session_path).messages(), log_may_lag)
    finally:
        engine.close()


def continue_problems(root: Path, **fields: object) -> list[str]:
    """Whether the newest session still opens: ``--continue`` with the scripted provider
    answers, and the session stays consistent."""
    script = answer_script(root, "still here")
    outcome = headless(options_in(root, continue_session=True, script=script, **fields))
    if (outcome.code, outcome.out) != (0, "still here\n"):
        return [f"--continue afterwards: exit {outcome.code}: {outcome.err.strip()[:300]}"]
    try:
        assert_session_consistent(newest(root).path, log_may_lag=bool(fields.get("no_fold")))
    except AssertionError as error:
        return [f"after --continue: {error}"]
    return []


__all__ = [
    "FOLDING_BUDGET",
    "RECORDED",
    "Outcome",
    "answer_script",
    "assert_session_consistent",
    "continue_problems",
    "folding_script",
    "headless",
    "newest",
    "options_in",
    "refusal_problems",
    "scoped_environment",
    "write_script",
]
