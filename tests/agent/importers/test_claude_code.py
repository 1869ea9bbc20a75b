"""Claude Code transcripts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pifold_agent.importers import load_trace
from pifold_core.entries import ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock
from tests.agent.importers.helpers import kinds, write_jsonl


def record(kind: str, uuid: str, parent: str | None, content: Any, **fields: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    message.update(fields.pop("message_fields", {}))
    return {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s",
        "timestamp": "2026-01-21T15:30:16.888Z",
        "isSidechain": False,
        "message": message,
        **fields,
    }


def usage(output: int) -> dict[str, int]:
    return {
        "input_tokens": 3,
        "cache_read_input_tokens": 1000,
        "cache_creation_input_tokens": 50,
        "output_tokens": output,
    }


def response_line(
    uuid: str, parent: str, message_id: str, block: dict[str, Any], output: int
) -> dict[str, Any]:
    return record(
        "assistant",
        uuid,
        parent,
        [block],
        requestId="req_" + message_id,
        message_fields={
            "id": message_id,
            "model": "claude-opus-4-5",
            "usage": usage(output),
            "stop_reason": "tool_use",
        },
    )


def session() -> list[dict[str, Any] | str]:
    return [
        "// Source: a gist",
        "// second comment line",
        {"type": "queue-operation", "operation": "dequeue", "sessionId": "s"},
        {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}},
        record("user", "u1", None, "read both files"),
        response_line(
            "a1", "u1", "msg_A", {"type": "thinking", "thinking": "t", "signature": "sig"}, 1
        ),
        response_line("a2", "a1", "msg_A", {"type": "text", "text": "reading"}, 2),
        response_line(
            "a3",
            "a2",
            "msg_A",
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"p": "x"}},
            3,
        ),
        response_line(
            "a4",
            "a3",
            "msg_A",
            {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {"c": "ls"}},
            99,
        ),
        {"type": "progress", "uuid": "p1", "parentUuid": "a4", "data": {}, "sessionId": "s"},
        # Parallel results: each hangs off its own tool_use line, only the last is on the chain.
        record(
            "user",
            "r1",
            "a3",
            [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "file x"}],
            toolUseResult={"ui": "only"},
        ),
        record(
            "user",
            "r2",
            "a4",
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "is_error": True,
                    "content": [
                        {"type": "text", "text": "ls failed"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "QQ"},
                        },
                    ],
                },
                {"type": "text", "text": "and also look at y"},
            ],
        ),
        {
            "type": "system",
            "subtype": "turn_duration",
            "uuid": "s1",
            "parentUuid": "r2",
            "durationMs": 5,
            "sessionId": "s",
        },
        {"type": "summary", "summary": "Title", "leafUuid": "r2"},
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": "cb",
            "parentUuid": None,
            "logicalParentUuid": "s1",
            "compactMetadata": {"trigger": "auto", "preTokens": 155000},
            "sessionId": "s",
        },
        record(
            "user",
            "cs",
            "cb",
            "This session is being continued from a previous conversation...",
            isCompactSummary=True,
        ),
        response_line("b1", "cs", "msg_B", {"type": "text", "text": "done"}, 40),
    ]


def test_claude_code_model_view(tmp_path: Path) -> None:
    trace = load_trace(write_jsonl(tmp_path / "cc.jsonl", session()))
    assert trace.format == "claude-code"
    assert trace.skipped_lines == 0
    assert kinds(trace.entries) == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
        "user",
        "assistant",
    ]
    user, merged, first_result, second_result, follow_up, last = trace.entries
    assert user.text == "read both files"
    # Four lines sharing msg_A are one request, with the last line's usage.
    assert merged.id == "msg_A"
    assert merged.content == (
        ThinkingBlock("t", "sig"),
        TextBlock("reading"),
        ToolCallBlock("toolu_1", "Read", {"p": "x"}),
        ToolCallBlock("toolu_2", "Bash", {"c": "ls"}),
    )
    assert merged.usage is not None
    assert merged.usage.output_tokens == 99
    assert (
        merged.usage.input_tokens,
        merged.usage.cache_read_tokens,
        merged.usage.cache_write_tokens,
    ) == (3, 1000, 50)
    assert (first_result.call_id, first_result.tool_name, first_result.text) == (
        "toolu_1",
        "Read",
        "file x",
    )
    assert (second_result.call_id, second_result.tool_name, second_result.is_error) == (
        "toolu_2",
        "Bash",
        True,
    )
    assert second_result.content[1] == ImageBlock("image/png", "QQ")
    assert follow_up.text == "and also look at y"
    assert "continued from a previous" not in " ".join(entry.text for entry in trace.entries)
    assert last.text == "done"
    assert any("compaction" in note and "155000" in note for note in trace.notes)
    assert "only" not in str([entry.to_record() for entry in trace.entries])
    assert len({entry.id for entry in trace.entries}) == len(trace.entries)


def test_abandoned_branch_is_left_out(tmp_path: Path) -> None:
    records: list[dict[str, Any] | str] = [
        record("user", "u1", None, "question"),
        response_line("a1", "u1", "msg_1", {"type": "text", "text": "answer"}, 5),
        record("user", "x1", "a1", "abandoned edit"),
        response_line("x2", "x1", "msg_x", {"type": "text", "text": "abandoned reply"}, 5),
        record("user", "u2", "a1", "edited question"),
        response_line("a2", "u2", "msg_2", {"type": "text", "text": "final"}, 5),
    ]
    trace = load_trace(write_jsonl(tmp_path / "cc.jsonl", records))
    texts = [entry.text for entry in trace.entries]
    assert texts == ["question", "answer", "edited question", "final"]
    assert any("not on the active conversation chain" in note for note in trace.notes)


def test_broken_line_does_not_lose_earlier_history(tmp_path: Path) -> None:
    records: list[dict[str, Any] | str] = [
        record("user", "u1", None, "question"),
        '{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {"id": "m',
        record("user", "u2", "a1", "next"),
        response_line("a2", "u2", "msg_2", {"type": "text", "text": "reply"}, 5),
    ]
    trace = load_trace(write_jsonl(tmp_path / "cc.jsonl", records))
    assert trace.skipped_lines == 1
    assert [entry.text for entry in trace.entries] == ["question", "next", "reply"]
    assert any("missing" in note for note in trace.notes)
