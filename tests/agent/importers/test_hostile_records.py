"""Trace files that break the rules: lone surrogates, nesting past the parser, odd shapes.

Found by the hostile-input harness (tests/fault/test_hostile_input.py). A lone surrogate
escape is what a JavaScript host writes when its string slicing cut a character in half: it
is repaired to U+FFFD and the record kept. A line nested past the parser's recursion limit
is skipped and counted; a record that parses but has a shape no importer can read refuses
the file by name. Nothing escapes as a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pifold_agent.bundled_traces import demo_trace
from pifold_agent.importers import TraceFormatError, load_trace
from pifold_agent.importers.jsonl import read_json_lines
from pifold_core.engine import Engine
from tests.core.builders import CharCounter, small_options

PI_TRACE = demo_trace()


def _head(lines: int = 40) -> list[dict[str, object]]:
    with PI_TRACE.open("rb") as stream:
        return [json.loads(stream.readline()) for _ in range(lines)]


def test_lone_surrogate_escapes_become_replacement_characters() -> None:
    text = '{"a\\ud83d": ["x\\udc00y", {"k": "\\ud83d\\ude00 ok"}], "b": "\\ud800"}\n'
    (record,) = read_json_lines(text).records
    assert record.value == {"a\ufffd": ["x\ufffdy", {"k": "\U0001f600 ok"}], "b": "\ufffd"}


def test_a_trace_with_a_cut_character_imports_and_replays(tmp_path: Path) -> None:
    records = _head()
    user = next(
        record
        for record in records
        if record.get("type") == "message" and record["message"]["role"] == "user"  # type: ignore[index]
    )
    user["message"]["content"][0]["text"] = "cut here: \ud83d"  # type: ignore[index]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    trace = load_trace(path)
    assert any("cut here: \ufffd" in entry.text for entry in trace.entries)
    engine = Engine.open(tmp_path / "state", small_options(budget=200_000), CharCounter())
    for entry in trace.entries:
        if entry.kind == "assistant":
            engine.prepare_request()
        engine.append(entry)
    engine.close()
    reopened = Engine.open(tmp_path / "state", None, CharCounter())
    assert len(reopened.view.transcript) == len(trace.entries)
    reopened.close()


def test_a_line_nested_past_the_parser_is_skipped_and_counted() -> None:
    lines = read_json_lines('{"a": 1}\n' + "[" * 50_000 + "]" * 50_000 + '\n{"b": 2}\n')
    assert [record.value for record in lines.records] == [{"a": 1}, {"b": 2}]
    assert lines.skipped_lines == 1


def test_a_record_of_an_unreadable_shape_refuses_the_file_by_name(tmp_path: Path) -> None:
    records = _head()
    records.append({"type": ["message"], "id": "odd"})  # a list where Pi has a name
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    with pytest.raises(TraceFormatError, match="a record has a shape the importer cannot read"):
        load_trace(path)


def test_an_unknown_record_shape_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"type": ["a"]}\n{"type": {"b": 1}}\n', encoding="utf-8")
    with pytest.raises(TraceFormatError, match="not a known trace format"):
        load_trace(path)
