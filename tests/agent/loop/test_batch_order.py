"""Calls of one batch that share a file run in the model's order; others stay concurrent.

Every batch goes through the real agent loop, the real tools and a real engine; each test
ends with the session's consistency (audit, lossless folds, reopen).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pifold_agent.loop import ToolOutcome
from pifold_agent.tools import builtin_tools
from pifold_agent.tools.file_writing import is_temporary_name
from pifold_agent.tools.protocol import Footprint, ToolContext
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry
from tests.agent.loop.helpers import (
    FunctionTool,
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)

Call = tuple[str, str, dict[str, JsonValue]]


async def run_batch_of(
    tmp_path: Path, work: Path, calls: list[Call], monkeypatch: pytest.MonkeyPatch
) -> list[Entry]:
    """One batch of ``calls`` with the built-in tools in ``work``; the tool results."""
    monkeypatch.chdir(work)  # the agent's working directory
    engine = open_engine(tmp_path)
    provider = ProgrammedProvider([reply("", *calls), reply("done")])
    agent, recorder, _ = make_agent(engine, provider, builtin_tools())
    assert (await agent.run("go")).outcome == "stop"
    results = [entry for entry in recorder.entries if entry.kind == "tool_result"]
    assert_session_consistent(engine, recorder)
    return results


def numbered(count: int) -> str:
    return "".join(f"line {number}\n" for number in range(count))


async def test_sixteen_edits_of_one_file_lose_no_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "f.txt").write_text(numbered(16))
    calls: list[Call] = [
        (f"e{n}", "edit", {"path": "f.txt", "oldText": f"line {n}\n", "newText": f"LINE {n}\n"})
        for n in range(16)
    ]
    results = await run_batch_of(tmp_path, work, calls, monkeypatch)
    assert [entry.is_error for entry in results] == [False] * 16
    assert (work / "f.txt").read_text() == "".join(f"LINE {n}\n" for n in range(16))


async def test_a_write_then_edits_under_every_spelling_apply_in_the_models_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "f.txt").write_text("old\n")
    os.symlink("f.txt", work / "link")
    os.link(work / "f.txt", work / "hard")
    calls: list[Call] = [
        ("w", "write", {"path": "./f.txt", "content": "a\n"}),
        ("e1", "edit", {"path": str(work / "f.txt"), "oldText": "a\n", "newText": "a\nb\n"}),
        ("e2", "edit", {"path": "link", "oldText": "b\n", "newText": "b\nc\n"}),
        ("e3", "edit", {"path": "sub/../hard", "oldText": "c\n", "newText": "c\nd\n"}),
        ("r", "read", {"path": "link"}),
    ]
    results = await run_batch_of(tmp_path, work, calls, monkeypatch)
    assert [entry.is_error for entry in results] == [False] * 5
    assert results[-1].text == "a\nb\nc\nd\n"
    assert (work / "f.txt").read_text() == "a\nb\nc\nd\n"
    assert (work / "hard").read_text() == "a\nb\nc\nd\n"  # one file: the hard link agrees
    assert (work / "link").is_symlink()


async def test_ls_beside_writes_never_shows_a_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "f.txt").write_text(numbered(12))
    calls: list[Call] = []
    for n in range(12):
        calls.append(
            (f"e{n}", "edit", {"path": "f.txt", "oldText": f"line {n}\n", "newText": "x\n" * n})
        )
        calls.append((f"l{n}", "ls", {}))
        calls.append((f"w{n}", "write", {"path": f"new{n}.txt", "content": "new"}))
        calls.append((f"f{n}", "find", {"pattern": "*"}))
    results = await run_batch_of(tmp_path, work, calls, monkeypatch)
    listings = [entry.text for entry in results if entry.call_id[0] in "lf"]
    for listing in listings:
        assert not any(is_temporary_name(name) for name in listing.split("\n")), listing
    # Each listing shows exactly the files written before it in the model's order.
    for n in range(12):
        shown = results[4 * n + 1].text.split("\n")
        assert shown == sorted(["f.txt", *(f"new{k}.txt" for k in range(n))])


async def test_bash_is_a_barrier_between_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "f.txt").write_text("start\n")
    calls: list[Call] = [
        ("e1", "edit", {"path": "f.txt", "oldText": "start\n", "newText": "one\n"}),
        ("b1", "bash", {"command": "echo two >> f.txt"}),
        ("e2", "edit", {"path": "f.txt", "oldText": "two\n", "newText": "TWO\n"}),
        ("b2", "bash", {"command": "ln -s f.txt alias && echo three >> alias"}),
        ("e3", "edit", {"path": "alias", "oldText": "three\n", "newText": "THREE\n"}),
        ("r", "read", {"path": "f.txt"}),
    ]
    results = await run_batch_of(tmp_path, work, calls, monkeypatch)
    assert [entry.is_error for entry in results] == [False] * 6
    assert results[-1].text == "one\nTWO\nTHREE\n"


async def test_calls_on_different_files_still_run_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two calls on different files each wait for the other to start: run one after the
    other they could not finish."""
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    async def meet(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        mine, other = ("a", "b") if arguments["path"] == "a" else ("b", "a")
        started[mine].set()
        await asyncio.wait_for(started[other].wait(), timeout=10)
        return ToolOutcome(f"met {other}")

    class Writer(FunctionTool):
        def footprint(self, arguments: dict[str, JsonValue], cwd: Path) -> Footprint:
            return Footprint(writes=(cwd / str(arguments["path"]),))

    engine = open_engine(tmp_path)
    provider = ProgrammedProvider(
        [reply("", ("1", "touch", {"path": "a"}), ("2", "touch", {"path": "b"})), reply("ok")]
    )
    monkeypatch.chdir(tmp_path)
    agent, recorder, _ = make_agent(engine, provider, [Writer("touch", meet)])
    assert (await agent.run("go")).outcome == "stop"
    texts = [entry.text for entry in recorder.entries if entry.kind == "tool_result"]
    assert texts == ["met b", "met a"]
    assert_session_consistent(engine, recorder)
