"""Parsing a model's arguments: typed actions, or an error naming the argument (DESIGN §7)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pifold_core.tool.actions import (
    BriefAction,
    ExpandAction,
    PeekAction,
    PinAction,
    ReboundaryAction,
    RefoldAction,
    StatusAction,
    UnmarkAction,
    UnpinAction,
)
from pifold_core.tool.arguments import ToolArgumentError, parse_arguments
from tests.core.tool.cases import EVIDENCE, FOLD, VALID


def _refused(raw: object) -> ToolArgumentError:
    with pytest.raises(ToolArgumentError) as caught:
        parse_arguments(raw)
    return caught.value


def test_each_action_becomes_its_dataclass() -> None:
    assert parse_arguments({"action": "status"}) == StatusAction("summary", 1, 50)
    assert parse_arguments(
        {"action": "status", "detail": "tree", "page": 2, "page_size": 10}
    ) == StatusAction("tree", 2, 10)
    assert parse_arguments({"action": "peek", "id": FOLD}) == PeekAction(FOLD, 0, None, True)
    assert parse_arguments(
        {"action": "peek", "id": "e00003", "offset": 10, "bytes": 20, "ephemeral": False}
    ) == PeekAction("e00003", 10, 20, False)
    assert parse_arguments(
        {"action": "brief", "id": "mark-2", "text": "  Ran pytest: 3 failed in tests/a.py\n"}
    ) == BriefAction("mark-2", "Ran pytest: 3 failed in tests/a.py")
    assert parse_arguments({"action": "expand", "id": FOLD}) == ExpandAction(FOLD)
    assert parse_arguments({"action": "refold", "id": FOLD}) == RefoldAction(FOLD)
    assert parse_arguments({"action": "pin", "ids": ["e1", FOLD]}) == PinAction(("e1", FOLD))
    assert parse_arguments({"action": "unpin", "ids": ["e1"]}) == UnpinAction(("e1",))
    assert parse_arguments(
        {"action": "reboundary", "id": "mark-4", "start": "e2", "end": "e9"}
    ) == ReboundaryAction("mark-4", "e2", "e9")
    assert parse_arguments({"action": "unmark", "id": "mark-4"}) == UnmarkAction("mark-4")


@pytest.mark.parametrize("arguments", [a for cases in VALID.values() for a in cases])
def test_every_valid_example_parses_and_names_its_action(arguments: dict[str, Any]) -> None:
    assert parse_arguments(arguments).name == arguments["action"]
    # A JSON string holding the object is the same call (some hosts pass the raw text).
    assert parse_arguments(json.dumps(arguments)) == parse_arguments(arguments)


def test_lenient_where_json_schema_is() -> None:
    # null counts as absent for optional arguments; 5.0 is an integer in JSON Schema.
    assert parse_arguments({"action": "peek", "id": FOLD, "offset": None, "bytes": 5.0}) == (
        PeekAction(FOLD, 0, 5, True)
    )


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("{not json", "arguments are not valid JSON"),
        ('{"action": NaN}', "arguments are not valid JSON"),
        ([{"action": "status"}], "must be a JSON object, got an array"),
        (None, "must be a JSON object, got null"),
        (42, "must be a JSON object, got a number"),
        ({1: "status"}, "argument names must be strings"),
    ],
)
def test_arguments_that_are_not_an_object(raw: object, fragment: str) -> None:
    error = _refused(raw)
    assert fragment in str(error)
    assert error.action is None


def test_unknown_or_missing_action_lists_the_valid_ones() -> None:
    for raw, fragment in [
        ({"action": "fold"}, "unknown action 'fold'"),
        ({"action": "STATUS"}, "unknown action 'STATUS'"),
        ({}, "missing argument 'action'"),
        ({"action": ["status"]}, "'action' must be a string, got an array"),
    ]:
        error = _refused(raw)
        assert fragment in str(error)
        assert (
            "valid actions: status, peek, brief, expand, refold, pin, unpin, reboundary, unmark"
            in str(error)
        )
        assert error.argument == "action"


@pytest.mark.parametrize(
    ("raw", "argument", "fragment"),
    [
        ({"action": "peek"}, "id", "missing argument 'id': action 'peek' requires it"),
        ({"action": "peek", "id": None}, "id", "missing argument 'id'"),
        ({"action": "peek", "id": FOLD, "length": 4}, "length", "not accepted by action 'peek'"),
        ({"action": "status", "id": FOLD}, "id", "it takes detail, page, page_size"),
        ({"action": "peek", "id": FOLD, "offset": True}, "offset", "integer, got a boolean"),
        ({"action": "peek", "id": FOLD, "offset": "3"}, "offset", "integer, got a string"),
        ({"action": "peek", "id": FOLD, "offset": 2.5}, "offset", "integer, got 2.5"),
        ({"action": "peek", "id": FOLD, "offset": -1}, "offset", "at least 0, got -1"),
        ({"action": "peek", "id": FOLD, "bytes": 0}, "bytes", "at least 1, got 0"),
        (
            {"action": "peek", "id": FOLD, "ephemeral": 1},
            "ephemeral",
            "true or false, got a number",
        ),
        ({"action": "status", "detail": "all"}, "detail", "'summary' or 'tree', got 'all'"),
        ({"action": "status", "page": 0}, "page", "at least 1"),
        ({"action": "status", "page_size": 500}, "page_size", "at most 200, got 500"),
    ],
)
def test_ill_typed_missing_and_extra_arguments(
    raw: dict[str, Any], argument: str, fragment: str
) -> None:
    error = _refused(raw)
    assert fragment in str(error)
    assert error.argument == argument
    assert error.action == raw["action"]


@pytest.mark.parametrize(
    ("raw", "argument", "fragment"),
    [
        ({"action": "expand", "id": "e00001"}, "id", "must be a fold id"),
        ({"action": "expand", "id": "fold-XYZ"}, "id", "must be a fold id"),
        ({"action": "refold", "id": "fold-0123"}, "id", "must be a fold id"),
        ({"action": "peek", "id": "fold-nothex00000"}, "id", "malformed fold id"),
        ({"action": "peek", "id": "evidence-1234"}, "id", "malformed evidence id"),
        ({"action": "brief", "id": "mark-0", "text": "Some words"}, "id", "mark id (mark-<n>)"),
        ({"action": "unmark", "id": FOLD}, "id", "mark id (mark-<n>)"),
        (
            {"action": "reboundary", "id": "mark-1", "start": FOLD, "end": "e2"},
            "start",
            "names a fold",
        ),
        (
            {"action": "reboundary", "id": "mark-1", "start": "e1", "end": EVIDENCE},
            "end",
            "names an evidence",
        ),
        ({"action": "peek", "id": "   "}, "id", "is empty"),
        ({"action": "peek", "id": " e1"}, "id", "surrounding whitespace"),
        ({"action": "peek", "id": "e1\n"}, "id", "control or invisible"),
        ({"action": "peek", "id": "e" * 257}, "id", "at most 256"),
        ({"action": "pin", "ids": ["e1", 2]}, "ids[1]", "id string, got a number"),
        ({"action": "pin", "ids": ["e1", "e1"]}, "ids[1]", "repeats 'e1'"),
        ({"action": "pin", "ids": [EVIDENCE]}, "ids[0]", "pin the entry it came from"),
        ({"action": "pin", "ids": []}, "ids", "is empty"),
        ({"action": "unpin", "ids": ["e"] * 101}, "ids", "names 101 ids; at most 100"),
    ],
)
def test_malformed_ids(raw: dict[str, Any], argument: str, fragment: str) -> None:
    error = _refused(raw)
    assert fragment in str(error)
    assert error.argument == argument


@pytest.mark.parametrize(
    "path",
    [
        "../fold-0123456789ab",
        "/etc/passwd",
        "store/sha256/ab",
        "..\\x",
        "e1/..",
        "a..b",
        "C:\\temp",
    ],
)
def test_an_id_is_never_a_path(path: str) -> None:
    for raw in (
        {"action": "peek", "id": path},
        {"action": "expand", "id": path},
        {"action": "pin", "ids": ["e1", path]},
        {"action": "reboundary", "id": "mark-1", "start": path, "end": "e1"},
    ):
        assert "an id is never a path" in str(_refused(raw))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "brief is empty"),
        (" \n\t ", "brief is empty"),
        ("... !!", "has no content"),
        ("x" * 2_001, "2001 characters; the limit is 2000"),
    ],
)
def test_brief_without_content_or_over_the_bound(text: str, fragment: str) -> None:
    error = _refused({"action": "brief", "id": "mark-3", "text": text})
    assert error.argument == "text"
    assert fragment in str(error)


def test_brief_at_the_bound_is_accepted() -> None:
    text = "a" * 2_000
    assert parse_arguments({"action": "brief", "id": "mark-3", "text": text}) == BriefAction(
        "mark-3", text
    )
