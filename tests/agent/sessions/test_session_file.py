"""Session files on disk: Pi's tree format, exact read-back, durability and damage."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pifold_agent.importers import load_trace
from pifold_agent.sessions import (
    SessionError,
    SessionFile,
    project_directory,
)
from pifold_core.canonical import JsonValue
from pifold_core.entries import Entry, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage


def conversation() -> list[Entry]:
    call = ToolCallBlock("call-1", "read", {"path": "src/a.py", "limit": 20})
    return [
        Entry("a0000001", "user", 1_764_619_200_000, (TextBlock("fix the test"),)),
        Entry(
            "a0000002",
            "assistant",
            1_764_619_201_000,
            (ThinkingBlock("look first", "sig=="), TextBlock("Reading."), call),
            usage=Usage(100, 20, 30, 40),
            model="claude-sonnet-4-5",
            extra={"stop_reason": "tool_use", "provider": "anthropic", "provider_data": {"x": 1}},
        ),
        Entry(
            "a0000003",
            "tool_result",
            1_764_619_202_000,
            (TextBlock("def a(): ...\n"), ImageBlock("image/png", "iVBORw0=")),
            call_id="call-1",
            tool_name="read",
            extra={"details": {"truncation": None}},
        ),
        Entry("a0000004", "note", 1_764_619_203_000, (TextBlock("[pi-fold] committed"),)),
        Entry(
            "a0000005",
            "assistant",
            1_764_619_204_000,
            (TextBlock("Done."),),
            extra={"stop_reason": "stop", "provider": "anthropic"},
        ),
    ]


def write_session(tmp_path: Path) -> SessionFile:
    session = SessionFile.create(tmp_path / "project", sessions_dir=tmp_path / "sessions")
    for entry in conversation():
        session.record(entry)
    session.sync()
    return session


def test_a_session_is_created_lazily_under_its_project_with_private_modes(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    session = SessionFile.create(tmp_path / "project", sessions_dir=tmp_path / "sessions")
    assert not session.path.exists()
    session.record(conversation()[0])
    folder = project_directory(tmp_path / "project", tmp_path / "sessions")
    assert session.path.parent == folder
    assert folder.name == "--" + str((tmp_path / "project").resolve())[1:].replace("/", "-") + "--"
    assert stat.S_IMODE(session.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(session.state_directory.stat().st_mode) == 0o700
    assert session.state_directory.name == session.path.stem + ".pi-fold"


def test_lines_are_pi_tree_format_in_camel_case(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    lines = [json.loads(line) for line in session.path.read_text().splitlines()]
    header = lines[0]
    assert header["type"] == "session" and header["version"] == 3
    assert header["id"] == session.id and header["cwd"] == str((tmp_path / "project").resolve())
    assert header["timestamp"].endswith("Z")
    assert [line["id"] for line in lines[1:]] == [entry.id for entry in conversation()]
    assert [line["parentId"] for line in lines[1:]] == [
        None,
        "a0000001",
        "a0000002",
        "a0000003",
        "a0000004",
    ]
    assistant = lines[2]["message"]
    assert assistant["role"] == "assistant" and assistant["stopReason"] == "toolUse"
    assert assistant["usage"] == {
        "input": 100,
        "output": 20,
        "cacheRead": 30,
        "cacheWrite": 40,
        "totalTokens": 190,
    }
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "look first",
        "thinkingSignature": "sig==",
    }
    assert assistant["content"][2]["type"] == "toolCall"
    assert assistant["pifold"] == {"provider_data": {"x": 1}}
    result = lines[3]["message"]
    assert result["role"] == "toolResult" and result["toolCallId"] == "call-1"
    assert result["details"] == {"truncation": None} and "pifold" not in result
    assert lines[4]["message"]["role"] == "custom"


def test_reading_back_gives_the_same_entries_byte_for_byte(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    session.close()
    reopened = SessionFile.open(session.path)
    assert reopened.problems == []
    read = reopened.messages()
    assert [entry.record_bytes for entry in read] == [
        entry.record_bytes for entry in conversation()
    ]
    assert reopened.leaf_id == "a0000005" and reopened.id == session.id


record_text = st.text(max_size=30)  # lone surrogates included: they must round-trip too


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(record_text, min_size=1, max_size=5),
    arguments=st.dictionaries(st.text(max_size=8), st.integers() | record_text, max_size=4),
    usage=st.tuples(*(st.integers(0, 10**9),) * 4),
)
def test_any_entry_round_trips_exactly(
    tmp_path_factory: pytest.TempPathFactory,
    texts: list[str],
    arguments: dict[str, JsonValue],
    usage: tuple[int, int, int, int],
) -> None:
    entries = [
        Entry("b0000001", "user", 5, tuple(TextBlock(text) for text in texts)),
        Entry(
            "b0000002",
            "assistant",
            6,
            (TextBlock(texts[0]), ToolCallBlock("c1", "bash", arguments)),
            usage=Usage(*usage),
            extra={"stop_reason": "tool_use", "free": texts[-1]},
        ),
        Entry(
            "b0000003",
            "tool_result",
            7,
            (TextBlock(texts[-1]),),
            call_id="c1",
            tool_name="bash",
            is_error=True,
        ),
    ]
    folder = tmp_path_factory.mktemp("round")
    session = SessionFile.create(folder, sessions_dir=folder / "s")
    for entry in entries:
        session.record(entry)
    session.close()
    read = SessionFile.open(session.path).messages()
    assert [entry.record_bytes for entry in read] == [entry.record_bytes for entry in entries]
    assert [entry.wire for entry in read] == [entry.wire for entry in entries]


def test_a_torn_last_line_is_skipped_reported_and_the_next_append_is_clean(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    session.close()
    with session.path.open("ab") as handle:
        handle.write(b'{"type":"message","id":"torn0001","parentId":"a0000005","mess')
    reopened = SessionFile.open(session.path)
    assert str(reopened.problems[0]).startswith("line 7: not a JSON line")
    assert [entry.id for entry in reopened.messages()] == [entry.id for entry in conversation()]
    later = Entry("a0000006", "user", 1_764_619_300_000, (TextBlock("again"),))
    reopened.record(later)
    reopened.close()
    again = SessionFile.open(session.path)
    assert len(again.problems) == 1 and again.problems[0].line_number == 7
    assert [entry.id for entry in again.messages()][-2:] == ["a0000005", "a0000006"]


def test_a_corrupt_middle_line_and_a_malformed_message_are_reported_never_fatal(
    tmp_path: Path,
) -> None:
    session = write_session(tmp_path)
    session.close()
    lines = session.path.read_text().splitlines()
    broken = json.loads(lines[3])
    broken["message"]["timestamp"] = "soon"
    lines[3] = json.dumps(broken)
    lines.insert(2, "\x00\x01 not json")
    session.path.write_text("\n".join(lines) + "\n")
    reopened = SessionFile.open(session.path)
    ids = [entry.id for entry in reopened.messages()]
    assert ids == ["a0000001", "a0000002", "a0000004", "a0000005"]
    reasons = [str(problem) for problem in reopened.problems]
    assert reasons[0].startswith("line 3: not a JSON line")
    assert reasons[1] == "line 5: entry a0000003: message 'timestamp' must be integer ms"


def test_only_the_current_branch_is_read(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    session.close()
    with session.path.open("a") as handle:
        # A branch taken from the first assistant message: the last line is the leaf.
        line = {
            "type": "message",
            "id": "f0000001",
            "parentId": "a0000002",
            "timestamp": "2025-12-01T20:00:05.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "other way"}],
                "timestamp": 9,
            },
        }
        handle.write(json.dumps(line) + "\n")
    ids = [entry.id for entry in SessionFile.open(session.path).messages()]
    assert ids == ["a0000001", "a0000002", "f0000001"]


def test_bad_input_is_refused_with_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    before = session.path.read_bytes()
    with pytest.raises(SessionError, match="entry id 'a0000003' is already in session"):
        session.record(conversation()[2])
    with pytest.raises(SessionError, match="first kept entry 'nope' is not a message"):
        session.append_compaction("summary", "nope", 10)
    assert session.path.read_bytes() == before
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(SessionError, match="is not a session file: no session header"):
        SessionFile.open(empty)
    with pytest.raises(SessionError, match="cannot read session file"):
        SessionFile.open(tmp_path / "absent.jsonl")


def test_compaction_entries_shape_the_context_the_way_pi_builds_it(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    compaction_id = session.append_compaction(
        "## Goal\nfix the test", "a0000003", 5_000, {"readFiles": ["src/a.py"], "modifiedFiles": []}
    )
    after = Entry("a0000006", "user", 1_764_619_300_000, (TextBlock("next"),))
    session.record(after)
    session.close()
    reopened = SessionFile.open(session.path)
    line = json.loads(reopened.path.read_text().splitlines()[6])
    assert line == {
        "type": "compaction",
        "id": compaction_id,
        "parentId": "a0000005",
        "timestamp": line["timestamp"],
        "summary": "## Goal\nfix the test",
        "firstKeptEntryId": "a0000003",
        "tokensBefore": 5_000,
        "details": {"readFiles": ["src/a.py"], "modifiedFiles": []},
    }
    context = reopened.context()
    assert context[0].kind == "note" and context[0].wire["role"] == "user"
    assert "<summary>\n## Goal\nfix the test\n</summary>" in context[0].text
    assert [entry.id for entry in context[1:]] == ["a0000003", "a0000004", "a0000005", "a0000006"]
    # The full history stays in the file: every message is still readable.
    assert len(reopened.messages()) == 6


def test_aborted_replies_are_kept_in_the_file_but_not_in_the_context(tmp_path: Path) -> None:
    session = SessionFile.create(tmp_path, sessions_dir=tmp_path / "s")
    session.record(Entry("c0000001", "user", 1, (TextBlock("go"),)))
    session.record(
        Entry("c0000002", "assistant", 2, (TextBlock("hal"),), extra={"stop_reason": "aborted"})
    )
    session.close()
    reopened = SessionFile.open(session.path)
    assert [entry.id for entry in reopened.messages()] == ["c0000001", "c0000002"]
    assert [entry.id for entry in reopened.context()] == ["c0000001"]


def test_the_pi_importer_reads_a_session_file(tmp_path: Path) -> None:
    session = write_session(tmp_path)
    session.close()
    trace = load_trace(session.path)
    assert trace.format == "pi-v3"
    assert [entry.id for entry in trace.entries] == [entry.id for entry in conversation()]
    assert [entry.wire for entry in trace.entries] == [entry.wire for entry in conversation()]
