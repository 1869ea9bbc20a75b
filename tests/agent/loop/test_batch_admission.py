"""No tool error escapes a batch: names that are not UTF-8, NUL bytes, odd details and
exceptions of any kind become results, and the batch's other results are kept."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from pifold_agent.loop import ToolOutcome
from pifold_agent.loop.admissible import DETAILS_MAX_DEPTH, admissible
from pifold_agent.tools import FindTool, GrepTool, LsTool
from pifold_agent.tools.protocol import ToolContext
from pifold_core.canonical import JsonValue
from tests.agent.loop.helpers import (
    FunctionTool,
    ProgrammedProvider,
    assert_session_consistent,
    make_agent,
    open_engine,
    reply,
)

LATIN_1_NAME = b"caf\xe9.txt"
"""A file name that is not UTF-8 (Latin-1 é)."""


async def test_a_name_that_is_not_utf8_is_shown_with_a_replacement_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with open(os.path.join(os.fsencode(work), LATIN_1_NAME), "wb") as handle:
        handle.write(b"needle\n")
    monkeypatch.chdir(work)
    engine = open_engine(tmp_path)
    calls = [
        ("l", "ls", {}),
        ("f", "find", {"pattern": "*.txt"}),
        ("g", "grep", {"pattern": "needle"}),
    ]
    provider = ProgrammedProvider([reply("", *calls), reply("done")])
    tools = [LsTool(), FindTool(use_fd=False), GrepTool(use_ripgrep=False)]
    agent, recorder, _ = make_agent(engine, provider, tools)
    assert (await agent.run("go")).outcome == "stop"
    results = {entry.call_id: entry for entry in recorder.entries if entry.kind == "tool_result"}
    assert results["l"].text == "caf\ufffd.txt" and not results["l"].is_error
    assert results["f"].text == "caf\ufffd.txt" and not results["f"].is_error
    assert results["g"].text == "caf\ufffd.txt:1: needle" and not results["g"].is_error
    assert_session_consistent(engine, recorder)


async def test_exceptions_of_every_kind_and_unrecordable_outcomes_become_results(
    tmp_path: Path,
) -> None:
    class Weird(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no message")

    async def behave(arguments: dict[str, JsonValue], context: ToolContext) -> ToolOutcome:
        how = arguments["how"]
        if how == "interrupt":
            raise KeyboardInterrupt
        if how == "exit":
            raise SystemExit(3)
        if how == "weird":
            raise Weird
        if how == "surrogate":
            return ToolOutcome("lone \udce9 and \x00", details={"name": "\udcff"})
        if how == "details":
            deep: object = "bottom"
            for _ in range(200):
                deep = [deep]
            return ToolOutcome("ok", details={"nan": math.nan, "set": {1}, "deep": deep})  # type: ignore[dict-item]
        if how == "not an outcome":
            return "just text"  # type: ignore[return-value]
        return ToolOutcome("fine")

    hows = ["interrupt", "fine", "exit", "weird", "surrogate", "details", "not an outcome"]
    engine = open_engine(tmp_path)
    calls = [(f"c{n}", "tool", {"how": how}) for n, how in enumerate(hows)]
    provider = ProgrammedProvider([reply("", *calls), reply("still running")])  # type: ignore[arg-type]
    agent, recorder, _ = make_agent(engine, provider, [FunctionTool("tool", behave)])
    result = await agent.run("go")
    assert result.outcome == "stop" and result.final_text == "still running"
    results = [entry for entry in recorder.entries if entry.kind == "tool_result"]
    assert [entry.call_id for entry in results] == [call[0] for call in calls]
    texts = [entry.text for entry in results]
    assert texts[0] == "error: KeyboardInterrupt: " and results[0].is_error
    assert texts[1] == "fine" and not results[1].is_error
    assert texts[2] == "error: SystemExit: 3"
    assert texts[3] == "error: Weird: (the error's message could not be shown)"
    assert texts[4] == "lone \ufffd and \ufffd"
    assert results[4].extra["details"] == {"name": "\ufffd"}
    details = results[5].extra["details"]
    assert isinstance(details, dict) and details["nan"] is None and details["set"] == "{1}"
    assert texts[6] == "error: tool tool returned str, not a ToolOutcome"
    assert_session_consistent(engine, recorder)


def test_admissible_keeps_a_clean_outcome_and_bounds_nesting() -> None:
    clean = ToolOutcome("text é 😀", details={"a": [1, 2.5, None, True]})
    assert admissible(clean, "t") == clean
    deep: object = 0
    for _ in range(DETAILS_MAX_DEPTH + 10):
        deep = {"d": deep}
    made = admissible(ToolOutcome("x", details={"deep": deep}), "t")  # type: ignore[dict-item]
    level: object = made.details
    depth = 0
    while isinstance(level, dict):
        level = next(iter(level.values()))
        depth += 1
    assert depth <= DETAILS_MAX_DEPTH + 1 and isinstance(level, str)
