"""Fault harness, agent: hostile files. Every tool against the files a user's machine holds.

A working folder is filled with what breaks naive tools: a FIFO, links to ``/dev/zero``,
``/dev/null``, ``/dev/urandom`` and ``/dev/full``, a 2 GB sparse file, a 3 MB line, a 30 MB
"PNG", symbolic links in and out of the folder, dangling and looping ones, hard links, names
that are not UTF-8 (and one holding a newline and an escape sequence), folders where files
are expected and unreadable files. Each case is one random batch of calls of every tool
(read, write, edit, ls, find, grep, bash; bash also starts background processes, blocks on
the FIFO, stops itself or prints NUL and stray bytes) through the real agent loop and batch
runner into a real engine and a real session file. Checked per case:

* no exception escapes (the run ends ``stop``, every call answered once, in order);
* each call returns within :data:`CALL_BOUND_SECONDS` of the batch's start;
* no process is left hanging once pifold's exit hook has run (every process the case's
  commands started carries a marker in its environment, and none may survive), and no tool
  thread is left blocked;
* every result is admissible (no lone surrogate, no NUL) and holds no traceback;
* the session reopens: the engine rebuilds its state from its log (audit clean, folds
  lossless), the session file reads back with no problem and the same entries.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import secrets
import tempfile
import threading
import time
from pathlib import Path

from pifold_agent.loop import Agent, AgentConfig, AgentEvent
from pifold_agent.loop.events import ToolExecutionEnd
from pifold_agent.loop.messages import in_context
from pifold_agent.sessions import SessionFile
from pifold_agent.tools import builtin_tools
from pifold_agent.tools.bash import end_background_processes
from pifold_core.canonical import JsonValue
from pifold_core.engine import Engine
from pifold_core.entries import Entry
from tests.agent.loop.helpers import ProgrammedProvider, reply
from tests.core.builders import CharCounter, small_options
from tests.core.engine_checks import assert_reopens_identically
from tests.fault.tally import FaultTally

CATEGORY = "agent: hostile files"
QUICK_COUNT = 20
"""Cases ``benchmarks/fault_harness.py --quick`` runs."""
FULL_COUNT = 300
"""Cases of the full table."""

CALL_BOUND_SECONDS = 20.0
"""A call not answered this long after its batch started hangs (bash calls are given at
most 2 s, and the group's kill grace is 1 s)."""
MARKER = "PIFOLD_FAULT_FILES_MARK"
"""Set in this process's environment, so every process a command starts carries it."""

PATHS = (
    "pipe", "zero", "null", "urandom", "full", "/dev/zero", "/dev/null", "huge.bin",
    "wide.txt", "big.png", "file.txt", "inside", "outside", "dir-out", "dir-out/real.txt",
    "dangling", "loop-a", "self", "hard1", "hard2", "folder", "folder/", "locked.txt",
    "locked-dir", "caf\ufffd.txt", "new\nline.txt", "", ".", "..", "@pipe", "~nobody9x/a",
    "fold-0123456789ab", "a\x00b", "deep/er/new.txt",
)  # fmt: skip
COMMANDS = (
    "ls -la", "cat pipe", "sleep 30 &", "(while :; do echo tick; sleep 0.05; done) &",
    "head -c 100000 /dev/zero | wc -c", "printf 'a\\0b\\377\\n'", "ls caf*",
    "yes | head -n 50000", "nohup sleep 30 > /dev/null 2>&1 &", "exec 1>&-; exec 2>&-; sleep 0.2",
    "kill -STOP $$", "cat big.png | wc -c", "env | grep -c .", "sleep 5",
    "python3 -m http.server 0 >/dev/null 2>&1 &", "cat /dev/urandom | head -c 3000",
    "echo hi > pipe &", "trap '' TERM; sleep 3", "echo a\x00b",
)  # fmt: skip
PATTERNS = ("x", "caf", "(", "needle", "\\x00", "a.*b", "", "nul\x00")
GLOBS = ("*", "*.txt", "**", "[", "caf*", "nul\x00")


def build(root: Path) -> Path:
    """The hostile working folder (and a folder outside it the links point into)."""
    work, outside = root / "work", root / "outside"
    work.mkdir()
    outside.mkdir()
    (outside / "real.txt").write_text("outside needle\n")
    (work / "file.txt").write_text("x needle\nline two\n")
    os.mkfifo(work / "pipe")
    for device in ("zero", "null", "urandom", "full"):
        os.symlink(f"/dev/{device}", work / device)
    with (work / "huge.bin").open("wb") as handle:
        handle.write(b"needle\n")
        handle.truncate(2 * 1024**3)
    (work / "wide.txt").write_bytes(b"w" * (3 * 1024 * 1024) + b"\nneedle\n")
    with (work / "big.png").open("wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n")
        handle.truncate(30 * 1024**2)
    os.symlink("file.txt", work / "inside")
    os.symlink("../outside/real.txt", work / "outside")
    os.symlink("../outside", work / "dir-out")
    os.symlink("nowhere/x.txt", work / "dangling")
    os.symlink("loop-b", work / "loop-a")
    os.symlink("loop-a", work / "loop-b")
    os.symlink("self", work / "self")
    (work / "hard1").write_text("hard needle\n")
    os.link(work / "hard1", work / "hard2")
    (work / "folder").mkdir()
    (work / "locked.txt").write_text("locked\n")
    (work / "locked.txt").chmod(0)
    (work / "locked-dir").mkdir()
    (work / "locked-dir").chmod(0)
    for name in (b"caf\xe9.txt", b"\xff\xfe", b"new\nline.txt", b"\x1b[31mred"):
        with open(os.path.join(os.fsencode(work), name), "wb") as handle:
            handle.write(b"needle \xff\n")
    return work


def random_call(rng: random.Random, number: int) -> tuple[str, str, dict[str, JsonValue]]:
    """One call of a random tool on hostile arguments."""
    tool = rng.choice(("read", "write", "edit", "ls", "find", "grep", "bash"))
    path = rng.choice(PATHS)
    arguments: dict[str, JsonValue]
    if tool == "read":
        arguments = {"path": path}
        if rng.random() < 0.4:
            arguments["offset"] = rng.choice((1, 2, 3, 10**9))
        if rng.random() < 0.4:
            arguments["limit"] = rng.choice((1, 5, 10**12))
    elif tool == "write":
        content = rng.choice(("x", "", "line\n" * 1000, "nul \x00 inside", "é😀\n"))
        arguments = {"path": path, "content": content}
    elif tool == "edit":
        arguments = {"path": path, "oldText": rng.choice(("x", "needle", "hard")), "newText": "y"}
    elif tool == "ls":
        arguments = {"path": path} if rng.random() < 0.8 else {}
    elif tool == "find":
        arguments = {"pattern": rng.choice(GLOBS), "path": path}
    elif tool == "grep":
        arguments = {"pattern": rng.choice(PATTERNS), "path": path}
    else:
        arguments = {"command": rng.choice(COMMANDS), "timeout": rng.choice((0.5, 1, 2))}
    return f"call{number}", tool, arguments


def marked_processes(token: str) -> list[int]:
    """Processes other than this one whose environment carries the run's marker."""
    found: list[int] = []
    needle = f"{MARKER}={token}".encode()
    if not os.path.isdir("/proc"):
        return found  # no /proc to read environments from: the exit hook is trusted
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                if needle in handle.read().split(b"\0"):
                    with open(f"/proc/{entry}/stat", "rb") as status:
                        if status.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                            found.append(int(entry))
        except OSError:
            continue
    return found


def tool_threads() -> list[str]:
    return [thread.name for thread in threading.enumerate() if "pifold tool thread" in thread.name]


_UNADMISSIBLE = re.compile("[\ud800-\udfff\x00]")


def check_results(case: str, calls: list[str], entries: list[Entry], tally: FaultTally) -> None:
    results = [entry for entry in entries if entry.kind == "tool_result"]
    if [entry.call_id for entry in results] != calls:
        tally.fail(case, f"calls {calls} answered as {[entry.call_id for entry in results]}")
    for entry in results:
        if _UNADMISSIBLE.search(entry.text):
            tally.fail(case, f"{entry.call_id}: a lone surrogate or NUL was recorded")
        if "Traceback (most recent call last)" in entry.text:
            tally.fail(case, f"{entry.call_id}: a traceback in the result")


async def one_case(
    root: Path, calls: list[tuple[str, str, dict[str, JsonValue]]]
) -> tuple[str | None, list[Entry]]:
    """Run one batch in a fresh session; what went wrong (None: nothing), and the session
    file's entries as they read back."""
    work = build(root)
    session = SessionFile.create(work, root / "sessions")
    engine = Engine.open(session.state_directory, small_options(budget=200_000), CharCounter())
    provider = ProgrammedProvider([reply("", *calls), reply("done")])
    config = AgentConfig(cwd=work, system_prompt="hostile files")
    agent = Agent(engine, provider, builtin_tools(), session, config)
    started = time.monotonic()
    late: list[str] = []

    def watch(event: AgentEvent) -> None:
        late_now = time.monotonic() - started > CALL_BOUND_SECONDS
        if isinstance(event, ToolExecutionEnd) and late_now:
            late.append(event.call_id)

    agent.subscribe(watch)
    try:
        bound = CALL_BOUND_SECONDS * 2 + 10
        result = await asyncio.wait_for(agent.run("go"), bound)
    except TimeoutError:
        return f"the batch did not end within {bound:g} s", []
    except BaseException as error:  # the promise under test: nothing escapes
        return f"{type(error).__name__} escaped: {error}", []
    finally:
        session.close()
    problems = [f"{call_id} answered late" for call_id in late]
    if result.outcome != "stop":
        problems.append(f"the run ended {result.outcome}: {result.error}")
    try:
        assert_reopens_identically(engine)
    except AssertionError as error:
        problems.append(f"the engine does not reopen identically: {error}")
    finally:
        engine.close()
    reopened = SessionFile.open(session.path)
    if reopened.problems:
        problems.append(f"the session file reads back with problems: {reopened.problems[:2]}")
    session_ids = [entry.id for entry in reopened.messages() if in_context(entry)]
    engine_ids = [
        entry.id for entry in engine.view.transcript.entries if entry.extra.get("pifold") is None
    ]
    if session_ids != engine_ids:
        problems.append("the session file and the engine disagree")
    return "; ".join(problems) or None, list(reopened.messages())


def run(count: int, seed: int) -> FaultTally:
    """``count`` random batches against a fresh hostile folder each."""
    tally = FaultTally(CATEGORY)
    rng = random.Random(seed)
    token = secrets.token_hex(8)
    os.environ[MARKER] = token
    try:
        for number in range(count):
            calls = [random_call(rng, index) for index in range(rng.randint(1, 6))]
            shown = [(name, arguments) for _, name, arguments in calls]
            case = f"case {number} (seed {seed}): {shown}"
            with tempfile.TemporaryDirectory(prefix="pifold-files-") as scratch:
                root = Path(scratch)
                problem, entries = asyncio.run(one_case(root, calls))
                tally.tried += len(calls)
                if problem is not None:
                    tally.fail(case, problem)
                check_results(case, [call[0] for call in calls], entries, tally)
                end_background_processes()
                deadline = time.monotonic() + 5
                while (marked_processes(token) or tool_threads()) and time.monotonic() < deadline:
                    time.sleep(0.02)
                if marked_processes(token):
                    tally.fail(case, f"processes left hanging: {marked_processes(token)}")
                if tool_threads():
                    tally.fail(case, f"tool threads still blocked: {tool_threads()}")
                (root / "work" / "locked-dir").chmod(0o700)  # so the folder can be removed
    finally:
        os.environ.pop(MARKER, None)
        end_background_processes()
    return tally


def test_hostile_files_never_escape_a_batch_hang_or_brick_the_session() -> None:
    tally = run(count=6, seed=5)
    assert tally.tried >= 6
    assert tally.failures == []
