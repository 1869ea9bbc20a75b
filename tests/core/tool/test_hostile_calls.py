"""Tool calls a model can make that used to escape ``run_tool`` (issue 9, defect 10).

A well-formed evidence id the session never had is a wrong id, not a damaged store; deeply
nested arguments are refused by an iterative depth check, never a ``RecursionError``; text
that cannot round-trip through UTF-8 is refused before anything is logged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pifold_core.engine import Engine
from pifold_core.tool import run_tool
from pifold_core.tool.arguments import MAX_ARGUMENT_DEPTH
from tests.core.builders import CharCounter, SessionBuilder, drive, small_options
from tests.core.engine_checks import chapters, unchanged


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    session = SessionBuilder()
    chapters(session, 3)
    session.user("what next?")
    session.assistant("Waiting.")
    opened = Engine.open(
        tmp_path / "state", small_options(budget=200_000, min_fold_chars=2_000), CharCounter()
    )
    drive(opened, session.entries)
    assert opened.view.marks
    return opened


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_a_peek_of_evidence_this_session_never_had_is_an_error_result(engine: Engine) -> None:
    identifier = "evidence-" + "ab" * 32
    with unchanged(engine):
        result = run_tool(engine, {"action": "peek", "id": identifier}, "call-1")
    assert result.is_error
    assert f"this session holds no evidence with id {identifier!r}" in result.text


@pytest.mark.parametrize("depth", [MAX_ARGUMENT_DEPTH + 1, 1_000, 100_000])
@pytest.mark.parametrize("form", ["object", "json text", "json bytes"])
def test_deeply_nested_arguments_are_an_error_result(engine: Engine, depth: int, form: str) -> None:
    if form == "object":
        arguments: object = {"action": "pin", "ids": _nested(depth)}
    else:
        text = '{"action":"pin","ids":' + "[" * depth + '"x"' + "]" * depth + "}"
        arguments = text if form == "json text" else text.encode()
    with unchanged(engine):
        result = run_tool(engine, arguments, "call-1")
    assert result.is_error
    assert f"nest deeper than {MAX_ARGUMENT_DEPTH} levels" in result.text


def test_brackets_inside_strings_do_not_count_as_nesting(engine: Engine) -> None:
    mark = next(iter(engine.view.marks))
    brief = 'Brackets [[[[[[[[[[ {{{{{{{{{{ \\" ]]]] stay text'
    arguments = json.dumps({"action": "brief", "id": mark, "text": brief})
    result = run_tool(engine, arguments, "call-1")
    assert not result.is_error, result.text
    assert engine.view.marks[mark].brief == brief


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": "brief", "id": "mark-1", "text": "half a character \ud83d"},
        {"action": "peek", "id": "e00001\udc00"},
        {"action": "pin", "ids": ["\ud800"]},
        {"action": "peek", "id": "e00001", "offset": float("inf")},
        {"action": "peek", "id": "e00001", "bytes": float("nan")},
        {"action": "status", "detail": "tree", "page": 1e308},
        '{"action": "peek", "id": "e00001", "offset": Infinity}',
        '{"action": "peek", "id": "e00001", "offset": NaN}',
        b'{"action": "status", "detail": "\xff"}',
        {"action": "search", "query": "half \ud83d"},
        {"action": "search", "query": "ok", "tool": "\udc00"},
        {"action": "search", "query": "ok", "path": "src/\ud800"},
        {"action": "search", "query": "ok", "limit": float("inf")},
        {"action": "search", "query": "(a+)+$", "regex": True},
        {"action": "search", "query": '"unclosed'},
        {"action": "search", "query": "***"},
    ],
)
def test_text_or_numbers_json_cannot_carry_are_error_results(
    engine: Engine, arguments: object
) -> None:
    with unchanged(engine):
        result = run_tool(engine, arguments, "call-1")
    assert result.is_error and result.text.startswith("error:")


def test_a_split_surrogate_pair_in_a_brief_is_kept_as_its_character(engine: Engine) -> None:
    mark = next(iter(engine.view.marks))
    result = run_tool(engine, {"action": "brief", "id": mark, "text": "Smile \ud83d\ude00"}, "c")
    assert not result.is_error, result.text
    assert engine.view.marks[mark].brief == "Smile \U0001f600"
