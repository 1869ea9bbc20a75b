"""The forgiving JSON Lines reader and format detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_agent.importers import TraceFormatError, load_trace
from pifold_agent.importers.jsonl import read_json_lines
from tests.agent.importers.helpers import write_json, write_jsonl


def test_glued_objects_are_split() -> None:
    lines = read_json_lines('{"a": 1}{"b": 2}  {"c": 3}\n{"d": 4}\n')
    assert [record.value for record in lines.records] == [{"a": 1}, {"b": 2}, {"c": 3}, {"d": 4}]
    assert [record.line_number for record in lines.records] == [1, 1, 1, 2]
    assert lines.skipped_lines == 0


def test_broken_lines_are_counted_and_comments_ignored() -> None:
    text = '// a comment\n{"a": 1}\n{"b": \n   // indented comment\nnot json\n{"c": 3}{"d"\n\n'
    lines = read_json_lines(text)
    assert [record.value for record in lines.records] == [{"a": 1}, {"c": 3}]
    # '{"b": ', 'not json' and the half-glued '{"c": 3}{"d"' line; comments and blanks are free.
    assert lines.skipped_lines == 3


def test_non_object_lines_count_as_skipped() -> None:
    assert read_json_lines("[1, 2]\n42\n").skipped_lines == 2


def test_line_separator_inside_a_string_does_not_split_the_record() -> None:
    lines = read_json_lines('{"text": "a\u2028b"}\n')
    assert lines.records[0].value == {"text": "a\u2028b"} and lines.skipped_lines == 0


def test_empty_file_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("  \n\n", encoding="utf-8")
    with pytest.raises(TraceFormatError, match=r"empty\.jsonl.*empty"):
        load_trace(path)


def test_unknown_format_is_a_format_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "other.jsonl", [{"event": "click", "x": 1}, {"event": "key"}])
    with pytest.raises(TraceFormatError, match=r"other\.jsonl.*not a known trace format"):
        load_trace(path)


def test_unknown_json_document_is_a_format_error(tmp_path: Path) -> None:
    path = write_json(tmp_path / "config.json", {"name": "x", "values": [1, 2]})
    with pytest.raises(TraceFormatError, match=r"config\.json"):
        load_trace(path)


def test_only_garbage_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "garbage.txt"
    path.write_text("hello\nworld\n", encoding="utf-8")
    with pytest.raises(TraceFormatError, match="no JSON records"):
        load_trace(path)


def test_missing_file_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="cannot be read"):
        load_trace(tmp_path / "absent.jsonl")


def test_format_comes_from_content_not_the_file_name(tmp_path: Path) -> None:
    codex_named_as_claude = write_jsonl(
        tmp_path / "claude-session.traj.json",
        [
            {
                "timestamp": "2026-01-01T00:00:00Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "hi"}],
                },
            },
            {
                "timestamp": "2026-01-01T00:00:01Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "hello"}],
                },
            },
        ],
    )
    assert load_trace(codex_named_as_claude).format == "codex"
