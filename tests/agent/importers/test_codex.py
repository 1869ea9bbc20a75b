"""Codex CLI rollouts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pifold_agent.importers import load_trace
from pifold_core.entries import TextBlock, ThinkingBlock, ToolCallBlock
from tests.agent.importers.helpers import kinds, write_jsonl


def item(payload: dict[str, Any], second: int = 0) -> dict[str, Any]:
    return {
        "timestamp": f"2026-04-21T13:47:{second:02d}.000Z",
        "type": "response_item",
        "payload": payload,
    }


def event(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-04-21T13:47:30.000Z", "type": "event_msg", "payload": payload}


def token_count(input_tokens: int, cached: int, output: int, total: int) -> dict[str, Any]:
    last = {
        "input_tokens": input_tokens,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": 1,
        "total_tokens": total,
    }
    return event(
        {
            "type": "token_count",
            "info": {"last_token_usage": last, "total_token_usage": {"total_tokens": total}},
        }
    )


def rollout() -> list[dict[str, Any] | str]:
    return [
        {
            "timestamp": "2026-04-21T13:47:17.408Z",
            "type": "session_meta",
            "payload": {"id": "x", "base_instructions": {"text": "You are Codex."}},
        },
        item(
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "sandbox rules"}],
            }
        ),
        {
            "timestamp": "2026-04-21T13:47:18Z",
            "type": "turn_context",
            "payload": {"model": "gpt-5.4"},
        },
        item(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            },
            1,
        ),
        event({"type": "user_message", "message": "fix it"}),
        event({"type": "token_count", "info": None}),
        item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "plan"}],
                "content": None,
                "encrypted_content": "ENC",
            },
            2,
        ),
        item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "looking"}],
            },
            2,
        ),
        item(
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c1",
                "arguments": '{"cmd": "ls"}',
            },
            2,
        ),
        item(
            {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c2",
                "arguments": "not json {",
            },
            2,
        ),
        token_count(1000, 900, 50, 1050),
        event({"type": "exec_command_end", "stdout": "UI copy"}),
        item({"type": "function_call_output", "call_id": "c1", "output": "a.py"}, 3),
        item({"type": "function_call_output", "call_id": "c2", "output": "error"}, 3),
        item(
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "call_id": "c3",
                "input": "*** Begin Patch",
                "status": "completed",
            },
            4,
        ),
        token_count(1200, 1100, 20, 2270),
        token_count(1200, 1100, 20, 2270),  # repeated report at a turn start
        item({"type": "custom_tool_call_output", "call_id": "c3", "output": "patched"}, 5),
        {
            "timestamp": "2026-04-21T13:48:00Z",
            "type": "compacted",
            "payload": {
                "message": "",
                "replacement_history": [
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "REPLACEMENT"}],
                    }
                ],
            },
        },
        token_count(0, 0, 0, 5000),  # the compaction request itself
        item(
            {
                "type": "message",
                "role": "assistant",
                "phase": "final_answer",
                "content": [{"type": "output_text", "text": "done"}],
            },
            6,
        ),
        token_count(300, 0, 10, 5310),
    ]


def test_codex_grouping_usage_and_compaction(tmp_path: Path) -> None:
    trace = load_trace(write_jsonl(tmp_path / "rollout.jsonl", rollout()))
    assert trace.format == "codex"
    assert kinds(trace.entries) == [
        "note",
        "note",
        "user",
        "assistant",
        "tool_result",
        "tool_result",
        "assistant",
        "tool_result",
        "assistant",
    ]
    instructions, developer, user, first, result_1, result_2, patch, patched, final = trace.entries
    assert instructions.text == "You are Codex." and developer.text == "sandbox rules"
    assert user.text == "fix it"
    assert first.content == (
        ThinkingBlock("plan", "ENC"),
        TextBlock("looking"),
        ToolCallBlock("c1", "exec_command", {"cmd": "ls"}),
        ToolCallBlock("c2", "exec_command", "not json {"),
    )
    assert first.model == "gpt-5.4"
    assert first.usage is not None
    # input_tokens includes the cached part: uncached = 1000 - 900.
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, first.usage.output_tokens) == (
        100,
        900,
        50,
    )
    assert (result_1.call_id, result_1.tool_name, result_1.text) == ("c1", "exec_command", "a.py")
    assert result_2.call_id == "c2"
    assert patch.content == (ToolCallBlock("c3", "apply_patch", "*** Begin Patch"),)
    assert patch.usage is not None and patch.usage.input_tokens == 100
    assert patched.tool_name == "apply_patch"
    assert final.usage is not None and final.usage.input_tokens == 300
    texts = " ".join(entry.text for entry in trace.entries)
    assert "REPLACEMENT" not in texts and "UI copy" not in texts
    assert any("compaction" in note and "replacement history of 1" in note for note in trace.notes)
