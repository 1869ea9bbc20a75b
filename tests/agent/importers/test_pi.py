"""Pi sessions: v1 linear and v3 tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pifold_agent.importers import load_trace
from pifold_core.entries import ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock
from tests.agent.importers.helpers import kinds, write_jsonl

USAGE = {"input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 7, "cost": {"total": 0.1}}
ZERO = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}


def message(role: str, timestamp: int, **fields: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "timestamp": "2025-11-20T23:33:01.550Z",
        "message": {"role": role, "timestamp": timestamp, **fields},
    }


def v1_records() -> list[dict[str, Any] | str]:
    return [
        {
            "type": "session",
            "id": "s1",
            "timestamp": "2025-11-20T23:33:50.805Z",
            "cwd": "/w",
            "provider": "anthropic",
            "modelId": "claude-sonnet-4-5",
            "thinkingLevel": "off",
        },
        message(
            "user",
            1763681581544,
            content=[
                {"type": "text", "text": "look"},
                {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
            ],
        ),
        message(
            "assistant",
            1763681581545,
            content=[],
            usage=ZERO,
            stopReason="aborted",
            errorMessage="Request was aborted",
            model="gpt-5.1-codex",
        ),
        {"type": "model_change", "timestamp": "2025-11-20T23:33:07.814Z", "provider": "a"},
        message(
            "assistant",
            1763681581600,
            model="claude-sonnet-4-5",
            usage=USAGE,
            stopReason="toolUse",
            content=[
                {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig"},
                {"type": "text", "text": "reading"},
                {
                    "type": "toolCall",
                    "id": "toolu_1",
                    "name": "read",
                    "arguments": {"path": "a.py"},
                },
            ],
        ),
        message(
            "toolResult",
            1763681581700,
            toolCallId="toolu_1",
            toolName="read",
            content=[{"type": "text", "text": "no such file"}],
            isError=True,
            details={"diff": "UI only"},
        ),
        message(
            "bashExecution",
            1763681581800,
            command="ls",
            output="a.py",
            exitCode=2,
            cancelled=False,
            truncated=False,
        ),
        message(
            "bashExecution",
            1763681581900,
            command="secret",
            output="x",
            exitCode=0,
            excludeFromContext=True,
        ),
        {
            "type": "compaction",
            "timestamp": "2025-11-20T23:40:00Z",
            "summary": "## Summary",
            "firstKeptEntryIndex": 3,
            "tokensBefore": 170000,
        },
        message("user", 1763681582000, content="go on"),
    ]


def test_v1_linear_session(tmp_path: Path) -> None:
    trace = load_trace(write_jsonl(tmp_path / "s.jsonl", v1_records()))
    assert trace.format == "pi-v1"
    assert kinds(trace.entries) == ["user", "assistant", "tool_result", "user", "user"]
    user, assistant, result, bash, last = trace.entries
    assert user.content == (TextBlock("look"), ImageBlock("image/png", "iVBOR"))
    assert user.timestamp_ms == 1763681581544
    assert assistant.content == (
        ThinkingBlock("hmm", "sig"),
        TextBlock("reading"),
        ToolCallBlock("toolu_1", "read", {"path": "a.py"}),
    )
    assert assistant.usage is not None
    assert (assistant.usage.input_tokens, assistant.usage.cache_read_tokens) == (10, 100)
    assert (assistant.usage.cache_write_tokens, assistant.usage.output_tokens) == (7, 5)
    assert assistant.model == "claude-sonnet-4-5"
    assert (result.call_id, result.tool_name, result.is_error) == ("toolu_1", "read", True)
    assert "UI only" not in str(result.to_record())
    assert bash.text == "Ran `ls`\n```\na.py\n```\n\nCommand exited with code 2"
    assert last.text == "go on"
    # The aborted empty turn is dropped; the compaction summary is skipped but noted.
    assert any("dropped 1 assistant turn" in note for note in trace.notes)
    assert any("compaction" in note and "170000" in note for note in trace.notes)
    assert "## Summary" not in "".join(entry.text for entry in trace.entries)
    assert len({entry.id for entry in trace.entries}) == len(trace.entries)


def test_v3_follows_the_active_branch_only(tmp_path: Path) -> None:
    def entry(entry_id: str, parent: str | None, role: str, text: str) -> dict[str, Any]:
        record = message(role, 1763681581544, content=[{"type": "text", "text": text}])
        if role == "assistant":
            record["message"]["usage"] = USAGE
        return {**record, "id": entry_id, "parentId": parent}

    records: list[dict[str, Any] | str] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00Z"},
        entry("a1", None, "user", "start"),
        entry("a2", "a1", "assistant", "first answer"),
        entry("b1", "a2", "user", "abandoned question"),
        entry("b2", "b1", "assistant", "abandoned answer"),
        {
            "type": "branch_summary",
            "id": "c0",
            "parentId": "a2",
            "fromId": "b2",
            "summary": "tried b, gave up",
            "timestamp": "2025-01-01T00:01:00Z",
        },
        {
            "type": "custom_message",
            "id": "c1",
            "parentId": "c0",
            "customType": "ext",
            "content": "extension says hi",
            "display": True,
            "timestamp": "2025-01-01T00:01:01Z",
        },
        {"type": "label", "id": "c2", "parentId": "c1", "targetId": "a1", "label": "x"},
        entry("c3", "c2", "user", "new question"),
        {
            "type": "compaction",
            "id": "c4",
            "parentId": "c3",
            "summary": "S",
            "firstKeptEntryId": "c3",
            "tokensBefore": 1234,
            "timestamp": "2025-01-01T00:02:00Z",
        },
        entry("c5", "c4", "assistant", "new answer"),
    ]
    trace = load_trace(write_jsonl(tmp_path / "tree.jsonl", records))
    assert trace.format == "pi-v3"
    assert [entry.id for entry in trace.entries] == ["a1", "a2", "c0", "c1", "c3", "c5"]
    assert kinds(trace.entries) == ["user", "assistant", "note", "note", "user", "assistant"]
    texts = " ".join(entry.text for entry in trace.entries)
    assert "abandoned" not in texts
    assert "tried b, gave up" in texts and "extension says hi" in texts
    assert any("2 entries on abandoned branches" in note for note in trace.notes)
    assert any("compaction" in note and "1234" in note for note in trace.notes)


def test_glued_lines_in_a_pi_file_are_split(tmp_path: Path) -> None:
    records = v1_records()
    text = "\n".join(json.dumps(record) for record in records[:-2])
    text += "\n" + json.dumps(records[-2]) + json.dumps(records[-1]) + "\n{broken\n"
    path = tmp_path / "glued.jsonl"
    path.write_text(text, encoding="utf-8")
    trace = load_trace(path)
    assert trace.entries[-1].text == "go on"
    assert trace.skipped_lines == 1
