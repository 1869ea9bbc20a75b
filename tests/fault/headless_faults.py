"""The faults of ``agent: headless errors``, one function each, and what each must leave.

Every fault gets a fresh copy of a session a real headless run left (:class:`Case`), does
its damage, runs ``pifold -p`` in-process (or through the Typer app, for options), and
checks what the command's contract says: a refusal is exit 2 with one ``error:`` line and no
traceback, a run that started and failed is exit 1 with one line, a run the fault does not
stop is exit 0 with its warnings. Then it undoes the fault as the refusal says to (a repair,
the state moved aside, the lock released, the file put back) and checks the session still
opens: ``--continue`` answers, nothing recorded before is lost, the audit is clean and every
fold verifies. The faults on the engine's state, the configuration files and the provider
are in :mod:`tests.fault.headless_state_faults`.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from pifold_agent.loop.messages import in_context
from pifold_agent.sessions import SessionFile, state_directory
from pifold_cli.app import app
from tests.agent.headless_cases import (
    FOLDING_BUDGET,
    Outcome,
    answer_script,
    continue_problems,
    headless,
    newest,
    options_in,
    refusal_problems,
)
from tests.fault.tally import FaultTally

RUNNER = CliRunner()


@dataclass
class Case:
    """One fault on one copy of a session."""

    root: Path
    """Where the copy lives (``work/`` the working directory, ``sessions/`` its sessions)."""
    template: str
    """Which prepared session it copies: ``plain``, ``folded`` or ``no-fold``."""
    rng: random.Random
    tally: FaultTally
    name: str = ""

    @property
    def budget(self) -> int | None:
        """The budget the copied session runs at."""
        return FOLDING_BUDGET if self.template == "folded" else None

    @property
    def no_fold(self) -> bool:
        return self.template == "no-fold"

    def check(self, what: str, problems: list[str]) -> None:
        """One promise checked: each problem is a failure of this case."""
        self.tally.tried += 1
        for problem in problems:
            self.tally.fail(f"{self.name} ({self.template}): {what}", problem)

    def run(self, stdin: bytes | None = None, **fields: object) -> Outcome:
        """``pifold -p`` on this session (``--continue``), the scripted provider answering."""
        values: dict[str, object] = {
            "continue_session": True,
            "script": answer_script(self.root),
            "budget": self.budget,
            "no_fold": self.no_fold,
        }
        values.update(fields)
        return headless(options_in(self.root, **values), stdin)

    def still_opens(self, before: list[str] | None = None) -> None:
        """``--continue`` works and every message recorded ``before`` is still on the branch."""
        self.check(
            "the session opens afterwards",
            continue_problems(self.root, budget=self.budget, no_fold=self.no_fold),
        )
        if before is not None:
            now = branch_ids(newest(self.root).path)
            lost = [identifier for identifier in before if identifier not in now]
            self.check("no message lost", [f"lost {lost[:3]}"] if lost else [])

    @property
    def session_path(self) -> Path:
        return newest(self.root).path

    @property
    def state(self) -> Path:
        return state_directory(self.session_path)


def branch_ids(path: Path) -> list[str]:
    """The ids of the in-context messages on the session file's current branch."""
    return [entry.id for entry in SessionFile.open(path).messages() if in_context(entry)]


PROGRESS = ("warning: ", "folded: ", "compacted (", "retrying in ")
"""The lines a run may print on stderr besides its one error line."""


def run_failure_problems(outcome: Outcome) -> list[str]:
    """What is wrong with a run that started and failed: exit 1, one ``error:`` line
    among progress lines, no traceback, nothing on stdout."""
    lines = outcome.err.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    odd = [line for line in lines if not line.startswith(("error: ", *PROGRESS))]
    problems = [] if outcome.code == 1 else [f"exit {outcome.code}: {outcome.err[:300]}"]
    if len(errors) != 1 or odd or "Traceback" in outcome.err:
        problems.append(f"stderr is not one error line among progress: {outcome.err[:300]!r}")
    if outcome.out:
        problems.append(f"stdout is not empty: {outcome.out[:100]!r}")
    return problems


def accepted_problems(outcome: Outcome, allowed: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with a run the fault must not stop: exit 0, and stderr holds only
    warnings (or ``allowed`` line starts)."""
    problems = [] if outcome.code == 0 else [f"exit {outcome.code}: {outcome.err[:300]}"]
    starts = ("warning: ", "folded: ", "compacted (", *allowed)
    odd = [line for line in outcome.err.splitlines() if not line.startswith(starts)]
    if odd:
        problems.append(f"unexpected stderr lines: {odd[:2]}")
    if "Traceback" in outcome.err:
        problems.append("a traceback on stderr")
    return problems


# -- options ----------------------------------------------------------------------------------


def bad_option(case: Case) -> None:
    """An option the command line refuses (Typer's usage error, or pifold's own line)."""
    script = str(answer_script(case.root))
    variants: list[list[str]] = [
        ["-p"],
        ["-p", "x", "--budget", case.rng.choice(["abc", "1e3", "", "12k"])],
        ["-p", "x", "--" + "".join(case.rng.choices("bogusflag", k=6))],
        ["-p", "x", "--provider", case.rng.choice(["nonsense", "OPENAI", "scripted2"])],
        ["-p", "x", "--script", str(case.root / "missing.jsonl")],
        ["-p", "x", "--script", str(_garbage(case.root / "garbage.jsonl", case.rng))],
        ["-p", "x", "--provider", "scripted"],
        ["-p", "   ", "--script", script],
    ]
    arguments = case.rng.choice(variants)
    environment = {"PIFOLD_HOME": str(case.root / "home")}
    result = RUNNER.invoke(app, arguments, env=environment)
    problems = []
    if result.exit_code != 2:
        problems.append(f"exit {result.exit_code} for {arguments}: {result.stderr[:200]}")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        problems.append(f"raised {type(result.exception).__name__}")
    usage = "─ Error ─" in result.stderr  # Typer's usage error: its box, and its usage lines
    lines = result.stderr.splitlines()
    if not usage and (len(lines) != 1 or not lines[0].startswith("error: ")):
        problems.append(f"stderr is neither a usage error nor one line: {result.stderr[:200]!r}")
    if "Traceback" in result.stderr or result.stdout:
        problems.append(f"traceback or output for {arguments}")
    if (case.root / "home").exists():
        problems.append("a refused command line wrote under PIFOLD_HOME")
    case.check(f"refuses {arguments}", problems)


def _garbage(path: Path, rng: random.Random) -> Path:
    path.write_bytes(rng.choice([b"not a script", b'{"script": "pifold", "version": 9}', b""]))
    return path


def bad_budget(case: Case) -> None:
    """A budget below the floor, or one that leaves no room for the message: refused with
    nothing logged, so the session runs on at its own budget."""
    before = case.session_path.read_bytes()
    state_log = case.state / "fold-log.jsonl"
    log_before = state_log.read_bytes() if state_log.exists() else b""
    if case.rng.random() < 0.5:
        budget = case.rng.choice([0, -1, -case.rng.randrange(1, 10**9), case.rng.randrange(999)])
        outcome = case.run(budget=budget)
        case.check(
            "refuses it",
            refusal_problems(outcome, 2, "--budget must be from 1,000 to 10,000,000 tokens"),
        )
    else:
        outcome = case.run(budget=case.rng.randrange(1_000, 2_500), stdin=b"word " * 400)
        if outcome.code == 0:  # the budget is the session's now, as --budget sets it
            case.check("takes a budget with room", accepted_problems(outcome))
            case.still_opens()
            return
        case.check("refuses it", refusal_problems(outcome, 2, "message refused"))
    unchanged = case.session_path.read_bytes() == before
    log_now = state_log.read_bytes() if state_log.exists() else b""
    case.check("records nothing", [] if unchanged and log_now == log_before else ["changed"])
    case.still_opens()


def unknown_session(case: Case) -> None:
    """``--resume`` with an id no session has (or an empty one)."""
    known = SessionFile.open(case.session_path).id
    prefix = "".join(case.rng.choices("0123456789abcdef", k=case.rng.randrange(4, 12)))
    if known.startswith(prefix) or case.rng.random() < 0.2:
        prefix, phrase = case.rng.choice(["", "  ", "\t"]), "must not be empty"
    else:
        phrase = "no session id starts with"
    outcome = case.run(continue_session=False, resume=prefix)
    case.check(f"refuses --resume {prefix!r}", refusal_problems(outcome, 2, phrase))
    case.still_opens()


# -- the session file and configuration files -------------------------------------------------


def session_file_unusable(case: Case) -> None:
    """The session file turned into a folder, a FIFO, a dangling link, or (not as root)
    unreadable."""
    path = case.session_path
    kept = case.root / "kept.jsonl"
    shutil.move(path, kept)
    shapes: list[str] = ["folder", "fifo", "dangling link"]
    if os.geteuid() != 0:
        shapes.append("unreadable")
    shape = case.rng.choice(shapes)
    if shape == "folder":
        path.mkdir()
    elif shape == "fifo":
        os.mkfifo(path)
    elif shape == "dangling link":
        path.symlink_to(case.root / "nowhere.jsonl")
    else:
        shutil.copy(kept, path)
        os.chmod(path, 0)
    session_id = path.stem.rpartition("_")[2]
    if case.rng.random() < 0.5:
        outcome = case.run()
    else:
        outcome = case.run(continue_session=False, resume=session_id[: case.rng.randrange(4, 36)])
    case.check(f"refuses a {shape}", refusal_problems(outcome, 2, "cannot be read"))
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink()
    shutil.move(kept, path)
    case.still_opens()


# -- input ------------------------------------------------------------------------------------


def invalid_bytes(data: bytes) -> int:
    """Bytes of ``data`` that are not part of valid UTF-8, found with the strict decoder."""
    count = 0
    while data:
        try:
            data.decode("utf-8")
            break
        except UnicodeDecodeError as error:
            count += error.end - error.start
            data = data[error.end :]
    return count


def invalid_utf8_input(case: Case) -> None:
    """Piped stdin and a prompt holding bytes that are not UTF-8."""
    words = [b"build ", b"caf\xc3\xa9 ", b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"ok\n", b"\x80"]
    piped = b"".join(case.rng.choice(words) for _ in range(case.rng.randrange(1, 40)))
    raw_prompt = b"summarise " + b"".join(case.rng.choice(words) for _ in range(4))
    prompt = raw_prompt.decode("utf-8", "surrogateescape")
    outcome = case.run(stdin=piped, prompt=prompt)
    expected = []
    if invalid_bytes(piped):
        count = invalid_bytes(piped)
        noun = "byte was" if count == 1 else "bytes were"
        expected.append(f"warning: piped stdin is not valid UTF-8: {count:,} {noun} replaced")
    if invalid_bytes(raw_prompt):
        count = invalid_bytes(raw_prompt)
        noun = "byte was" if count == 1 else "bytes were"
        expected.append(f"warning: the prompt given to -p is not valid UTF-8: {count:,} {noun}")
    said = [line for line in outcome.err.splitlines() if "not valid UTF-8" in line]
    problems = accepted_problems(outcome)
    if len(said) != len(expected) or any(
        not line.startswith(start) for line, start in zip(said, expected, strict=True)
    ):
        problems.append(f"said {said}, expected {expected}")
    case.check("decodes with replacement and says so", problems)
    users = [e.text for e in SessionFile.open(case.session_path).messages() if e.kind == "user"]
    sent = [piped, raw_prompt] if piped.strip() else [raw_prompt]
    recorded = users[-len(sent) :]
    case.check(
        "records the replaced text",
        [
            f"recorded {len(text.encode())} bytes for {len(data)} with {invalid_bytes(data)} bad"
            for text, data in zip(recorded, sent, strict=True)
            if len(text.encode("utf-8")) != len(data) + 2 * invalid_bytes(data)
        ],
    )
    case.still_opens()


def oversized_input(case: Case) -> None:
    """A paste no request at the session's budget can carry."""
    budget = case.rng.randrange(3_000, 8_000)
    lines = case.rng.randrange(budget // 6, budget)  # each line is about 8 tokens
    paste = b"".join(f"log line {n} of the build\n".encode() for n in range(lines))
    before = case.session_path.read_bytes()
    outcome = case.run(stdin=paste, budget=budget)
    if outcome.code == 0:  # it fit: the message was under the room
        case.check("takes a message that fits", accepted_problems(outcome))
    else:
        case.check("refuses it", refusal_problems(outcome, 2, "message refused", "budget is"))
        unchanged = case.session_path.read_bytes() == before
        case.check("records nothing", [] if unchanged else ["the session changed"])
    case.still_opens()


# -- another writer -----------------------------------------------------------


def lock_held(case: Case) -> None:
    """Another writer holds the session (this process, through a second open)."""
    holder = SessionFile.open(case.session_path)
    holder.claim()
    try:
        before = case.session_path.read_bytes()
        outcome = case.run(no_fold=case.rng.random() < 0.5 or case.no_fold)
        session_id = SessionFile.open(case.session_path).id
        case.check(
            "refuses the second writer",
            refusal_problems(outcome, 2, session_id, f"pid {os.getpid()}"),
        )
        unchanged = case.session_path.read_bytes() == before
        case.check("records nothing", [] if unchanged else ["the session changed"])
    finally:
        holder.close()
    case.still_opens()


Fault = Callable[[Case], None]
"""One fault: damage the case's session, run, check, undo, check it opens."""


__all__ = [
    "PROGRESS",
    "RUNNER",
    "Case",
    "Fault",
    "accepted_problems",
    "bad_budget",
    "bad_option",
    "branch_ids",
    "invalid_bytes",
    "invalid_utf8_input",
    "lock_held",
    "oversized_input",
    "run_failure_problems",
    "session_file_unusable",
    "unknown_session",
]
