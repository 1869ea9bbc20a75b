"""mini-swe-agent, SWE-agent and Gemini CLI whole-document formats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pifold_agent.importers import load_trace
from pifold_core.entries import TextBlock, ThinkingBlock, ToolCallBlock
from tests.agent.importers.helpers import kinds, write_json


def test_mini_swe_agent(tmp_path: Path) -> None:
    def assistant(call_id: str, command: str, stamp: float) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": "thinking aloud",
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "bash", "arguments": f'{{"command": "{command}"}}'},
                }
            ],
            "extra": {
                "timestamp": stamp,
                "response": {
                    "id": f"resp-{call_id}",
                    "model": "deepseek-chat",
                    "usage": {
                        "prompt_tokens": 1835,
                        "completion_tokens": 141,
                        "prompt_tokens_details": {"cached_tokens": 320},
                    },
                },
            },
        }

    document = {
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "x",
        "info": {"exit_status": "Submitted"},
        "messages": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "Fix the bug."},
            assistant("call_1", "ls", 1775809100.1269045),
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": "<returncode>0</returncode>",
                "extra": {"returncode": 0, "timestamp": 1775809101.0},
            },
            assistant("call_2", "submit", 1775809102.0),
            {"role": "exit", "content": "diff --git"},
        ],
    }
    trace = load_trace(write_json(tmp_path / "run.json", document))
    assert trace.format == "mini-swe-agent"
    assert kinds(trace.entries) == ["note", "user", "assistant", "tool_result", "assistant"]
    first = trace.entries[2]
    assert first.id == "resp-call_1"
    assert first.content == (
        TextBlock("thinking aloud"),
        ToolCallBlock("call_1", "bash", {"command": "ls"}),
    )
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, first.usage.output_tokens) == (
        1835 - 320,
        320,
        141,
    )
    assert first.timestamp_ms == 1775809100127
    assert trace.entries[0].timestamp_ms == 1775809100127  # borrowed from the next entry
    assert trace.entries[3].tool_name == "bash"
    assert any("exit" in note for note in trace.notes)


def test_swe_agent_uses_history(tmp_path: Path) -> None:
    document = {
        "trajectory": [{"action": "ls", "messages": [{"role": "user", "content": "DUPLICATE"}]}],
        "info": {"exit_status": "submitted"},
        "history": [
            {"role": "system", "content": "SETTING", "agent": "main"},
            {"role": "user", "content": [{"type": "text", "text": "ISSUE"}], "agent": "main"},
            {
                "role": "assistant",
                "content": "list files",
                "thought": "list files",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "bash", "arguments": '{"command":"ls"}'},
                    }
                ],
            },
            {"role": "tool", "content": "a.py", "tool_call_ids": ["call_a"]},
        ],
    }
    trace = load_trace(write_json(tmp_path / "x.traj", document))
    assert trace.format == "swe-agent"
    assert kinds(trace.entries) == ["note", "user", "assistant", "tool_result"]
    assert trace.entries[3].call_id == "call_a" and trace.entries[3].tool_name == "bash"
    assert "DUPLICATE" not in " ".join(entry.text for entry in trace.entries)
    assert [entry.timestamp_ms for entry in trace.entries] == [0, 1000, 2000, 3000]


def test_gemini_cli_history(tmp_path: Path) -> None:
    history = [
        {"role": "user", "parts": [{"text": "<session_context>"}]},
        {
            "role": "model",
            "parts": [
                {"text": "pondering", "thought": True},
                {
                    "functionCall": {"name": "read_file", "args": {"path": "a"}},
                    "thoughtSignature": "SIG",
                },
                {"functionCall": {"name": "glob", "args": {"p": "*"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "glob", "response": {"output": "a b"}}},
                {"functionResponse": {"name": "read_file", "response": {"error": "nope"}}},
                {"functionResponse": {"id": "lost", "name": "x", "response": {"output": "?"}}},
            ],
        },
        {"role": "model", "parts": [{"text": "done"}]},
    ]
    first = load_trace(write_json(tmp_path / "t.json", history))
    second = load_trace(write_json(tmp_path / "t2.json", history))
    assert first.format == "gemini-cli"
    assert kinds(first.entries) == [
        "user",
        "assistant",
        "tool_result",
        "tool_result",
        "tool_result",
        "assistant",
    ]
    model = first.entries[1]
    assert model.content == (
        ThinkingBlock("pondering"),
        ToolCallBlock("gemini-call-0000", "read_file", {"path": "a"}),
        ToolCallBlock("gemini-call-0001", "glob", {"p": "*"}),
    )
    assert model.extra == {"thoughtSignatures": [{"block": 1, "signature": "SIG"}]}
    glob_result, read_result, orphan = first.entries[2:5]
    assert (glob_result.call_id, glob_result.text) == ("gemini-call-0001", "a b")
    assert (read_result.call_id, read_result.is_error) == ("gemini-call-0000", True)
    assert orphan.call_id == "lost"
    assert any("lost" in note for note in first.notes)
    assert [entry.to_record() for entry in first.entries] == [
        entry.to_record() for entry in second.entries
    ]
    timestamps = [entry.timestamp_ms for entry in first.entries]
    assert timestamps == sorted(set(timestamps))
