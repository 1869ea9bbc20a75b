"""Fault harness, agent: concurrent tools. Random batches on shared files end as a
sequential run in the model's order would leave them.

Each case is a random batch of write, edit, read, ls and bash calls on a few shared files,
each named under several spellings (``a.txt``, ``./a.txt``, ``sub/../a.txt``, the absolute
path, a symbolic link to it, a hard link to it). The batch runs through the real agent loop
and batch runner into a real engine, where its calls start concurrently; then the folder is
put back as it was and the same calls run one at a time, in the model's order, straight
through the tools. Checked per case:

* every file ends with the same content (no lost update) and the links are still links;
* every call got the same result in both runs (an edit that succeeded sequentially
  succeeded in the batch, a read or a listing saw the same state);
* no listing ever showed a write's temporary file;
* the session is consistent (audit clean, folds lossless, a reopen rebuilds the same state).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest

from pifold_agent.loop import AgentConfig, MemoryRecorder
from pifold_agent.loop.agent import Agent
from pifold_agent.tools import builtin_tools
from pifold_agent.tools.file_writing import is_temporary_name
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import (
    ProgrammedProvider,
    assert_session_consistent,
    open_engine,
    reply,
)
from tests.fault.tally import FaultTally

CATEGORY = "agent: concurrent tools"
QUICK_COUNT = 20
"""Batches ``benchmarks/fault_harness.py --quick`` runs."""
FULL_COUNT = 400
"""Batches of the full table."""

TOKENS = 12
"""Each file holds lines ``<name>0`` .. ``<name>11``; edits rename them, writes reset them."""

Call = tuple[str, str, dict[str, JsonValue]]


def spellings(work: Path) -> dict[str, list[str]]:
    """Every name each shared file goes by."""
    return {
        "a": ["a.txt", "./a.txt", "sub/../a.txt", str(work / "a.txt"), "link-a"],
        "b": ["b.txt", "hard-b", str(work / "hard-b")],
        "c": ["sub/c.txt", "./sub/c.txt", "link-sub/c.txt"],
    }


def initial(work: Path) -> None:
    """The shared files, their links, and nothing else."""
    (work / "sub").mkdir(parents=True)
    for name, path in (("a", "a.txt"), ("b", "b.txt"), ("c", "sub/c.txt")):
        (work / path).write_text("".join(f"{name}{token}\n" for token in range(TOKENS)))
    os.symlink("a.txt", work / "link-a")
    os.symlink("sub", work / "link-sub")
    os.link(work / "b.txt", work / "hard-b")


def random_call(rng: random.Random, work: Path, number: int) -> Call:
    name = rng.choice("abc")
    path = rng.choice(spellings(work)[name])
    token = f"{name}{rng.randrange(TOKENS)}"
    kind = rng.choice(("edit", "edit", "edit", "write", "read", "ls", "bash"))
    arguments: dict[str, JsonValue]
    if kind == "edit":
        arguments = {"path": path, "oldText": f"{token}\n", "newText": f"{token}.{number}\n"}
    elif kind == "write":
        arguments = {"path": path, "content": "".join(f"{name}{t}\n" for t in range(TOKENS))}
    elif kind == "read":
        arguments = {"path": path}
    elif kind == "ls":
        arguments = {"path": rng.choice((".", "sub", "link-sub"))}
    else:
        command = rng.choice(
            (f"echo {token}.sh{number} >> {path}", f"cat {path}", "ls", f"wc -l < {path}")
        )
        arguments = {"command": command}
    return f"c{number}", kind, arguments


def snapshot(work: Path) -> dict[str, str]:
    """Every entry of the folder: a file's content, a link's target."""
    state: dict[str, str] = {}
    for path in sorted(work.rglob("*")):
        relative = str(path.relative_to(work))
        if path.is_symlink():
            state[relative] = f"-> {os.readlink(path)}"
        elif path.is_file():
            state[relative] = path.read_text()
    state["(b and hard-b are one file)"] = str(os.path.samefile(work / "b.txt", work / "hard-b"))
    return state


async def concurrent(root: Path, work: Path, calls: list[Call]) -> tuple[list[str], str | None]:
    """The batch through the real loop; the result texts, and a broken consistency."""
    engine = open_engine(root)
    provider = ProgrammedProvider([reply("", *calls), reply("done")])
    recorder = MemoryRecorder()
    config = AgentConfig(cwd=work, system_prompt="concurrent tools")
    agent = Agent(engine, provider, builtin_tools(), recorder, config)
    await agent.run("go")
    texts = [entry.text for entry in recorder.entries if entry.kind == "tool_result"]
    try:
        assert_session_consistent(engine, recorder)
    except AssertionError as error:
        return texts, f"the session is not consistent: {error}"
    return texts, None


async def sequential(work: Path, calls: list[Call]) -> list[str]:
    """The same calls one at a time, in the model's order, straight through the tools."""
    tools = {tool.name: tool for tool in builtin_tools()}
    texts = []
    for call_id, name, arguments in calls:
        outcome = await tools[name].run(dict(arguments), ToolContext(call_id, work, _ignore))
        texts.append(outcome.text)
    return texts


def _ignore(text: str) -> None:
    """Partial output is not compared."""


def one_case(root: Path, calls: list[Call], case: str, tally: FaultTally) -> None:
    work = root / "work"
    initial(work)
    batch_texts, broken = asyncio.run(concurrent(root / "batch", work, calls))
    batch_state = snapshot(work)
    shutil.rmtree(work)
    initial(work)
    one_by_one = asyncio.run(sequential(work, calls))
    tally.tried += len(calls)
    if broken is not None:
        tally.fail(case, broken)
    expected_state = snapshot(work)
    for path in sorted(set(batch_state) | set(expected_state)):
        if batch_state.get(path) != expected_state.get(path):
            wanted = expected_state.get(path)
            tally.fail(case, f"{path}: {batch_state.get(path)!r}, sequentially {wanted!r}")
    for (call_id, name, _), got, wanted in zip(calls, batch_texts, one_by_one, strict=True):
        if got != wanted:
            tally.fail(case, f"{call_id} ({name}) answered {got!r}, sequentially {wanted!r}")
    for (call_id, name, _), text in zip(calls, batch_texts, strict=True):
        if name == "ls" and any(is_temporary_name(line) for line in text.split("\n")):
            tally.fail(case, f"{call_id}: the listing showed a temporary file: {text!r}")


def run(count: int, seed: int) -> FaultTally:
    """``count`` random batches, each against a sequential run of the same calls."""
    tally = FaultTally(CATEGORY)
    rng = random.Random(seed)
    for number in range(count):
        with tempfile.TemporaryDirectory(prefix="pifold-concurrent-") as scratch:
            root = Path(scratch)
            calls = [random_call(rng, root / "work", index) for index in range(rng.randint(2, 14))]
            one_case(root, calls, f"case {number} (seed {seed}): {calls}", tally)
    return tally


@pytest.mark.parametrize("seed", [11])
def test_concurrent_calls_on_shared_files_equal_a_sequential_run(seed: int) -> None:
    tally = run(count=8, seed=seed)
    assert tally.tried >= 16
    assert tally.failures == []
