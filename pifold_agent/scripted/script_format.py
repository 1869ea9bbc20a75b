"""The scripted provider's sources: a JSON-lines script file, or any trace the importers read.

The line format is documented in :mod:`pifold_agent.scripted.provider`. Parsing is strict: a
malformed line is a :class:`ScriptError` naming the file, the line and what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pifold_agent.importers import TraceFormatError, load_trace
from pifold_agent.providers.base import ErrorClass, ProviderError
from pifold_agent.tools.protocol import ToolOutcome
from pifold_core.entries import Block, Entry, TextBlock, ThinkingBlock, ToolCallBlock

SCRIPT_HEADER = "pifold"
"""The ``script`` value of a script file's header line."""

ToolMode = Literal["execute", "recorded"]


class ScriptError(ValueError):
    """A script file is malformed; the message names the file and the line."""


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted model reply."""

    content: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class Failure:
    """One scripted failed request."""

    error: ProviderError


@dataclass(frozen=True, slots=True)
class Summary:
    """One scripted answer to a summarisation request (native compaction)."""

    text: str


@dataclass(frozen=True, slots=True)
class UserTurn:
    """One scripted user message."""

    text: str


Step = Reply | Failure | UserTurn


@dataclass
class Script:
    """A parsed script: its steps in order and its recorded tool results."""

    steps: list[Step]
    tools: ToolMode
    results: dict[str, ToolOutcome] = field(default_factory=dict)
    """Recorded results by call id."""
    summaries: list[Summary] = field(default_factory=list)
    """Answers to summarisation requests, in order."""
    model: str = "scripted"
    chunk_chars: int = 24
    chunk_delay_s: float = 0.0


def load_script(path: Path) -> Script:
    """Read a script file or a trace.

    Raises:
        ScriptError: the script file is malformed (naming the line).
        TraceFormatError: the file is neither a script nor a known trace.
        OSError: the file cannot be read.
    """
    text = path.read_text(encoding="utf-8")
    first = text.lstrip().split("\n", 1)[0]
    try:
        header = json.loads(first)
    except json.JSONDecodeError:
        header = None
    if isinstance(header, dict) and header.get("script") == SCRIPT_HEADER:
        return _parse_script(path, text)
    return script_from_entries(load_trace(path).entries)


def script_from_entries(entries: Sequence[Entry]) -> Script:
    """A recorded-tools script playing a transcript's replies (a trace, a past session)."""
    steps: list[Step] = []
    results: dict[str, ToolOutcome] = {}
    for entry in entries:
        if entry.kind == "assistant":
            steps.append(Reply(entry.content))
        elif entry.kind == "tool_result" and entry.call_id is not None:
            results[entry.call_id] = ToolOutcome(entry.text, entry.is_error)
        elif entry.kind == "user" and entry.text.strip():
            steps.append(UserTurn(entry.text))
    if not any(isinstance(step, Reply) for step in steps):
        raise TraceFormatError("the trace holds no assistant message to play")
    return Script(steps, "recorded", results)


def _parse_script(path: Path, text: str) -> Script:
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1) if line.strip()]
    header = json.loads(lines[0][1])
    tools = header.get("tools", "execute")
    if tools not in ("execute", "recorded"):
        raise ScriptError(f"{path}: header 'tools' must be 'execute' or 'recorded'")
    script = Script([], tools, model=str(header.get("model", "scripted")))
    script.chunk_chars = _number(path, 1, header, "chunk_chars", 24, int)
    script.chunk_delay_s = _number(path, 1, header, "chunk_delay_s", 0.0, float)
    for number, line in lines[1:]:
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise ScriptError(f"{path}:{number}: not JSON ({error.msg})") from None
        if not isinstance(item, dict):
            raise ScriptError(f"{path}:{number}: each line must be a JSON object")
        _parse_line(path, number, item, script)
    if not any(isinstance(step, Reply) for step in script.steps):
        raise ScriptError(f"{path}: the script has no assistant line")
    return script


def _parse_line(path: Path, number: int, item: dict[str, Any], script: Script) -> None:
    where = f"{path}:{number}"
    if "user" in item:
        if not isinstance(item["user"], str) or not item["user"].strip():
            raise ScriptError(f"{where}: 'user' must be non-empty text")
        script.steps.append(UserTurn(item["user"]))
    elif "assistant" in item:
        script.steps.append(Reply(_reply_blocks(where, item)))
    elif "tool_result" in item:
        call_id, text = item.get("call_id"), item["tool_result"]
        if not isinstance(call_id, str) or not isinstance(text, str):
            raise ScriptError(f"{where}: a tool_result needs text and a string 'call_id'")
        script.results[call_id] = ToolOutcome(text, bool(item.get("is_error", False)))
    elif "summary" in item:
        if not isinstance(item["summary"], str) or not item["summary"].strip():
            raise ScriptError(f"{where}: 'summary' must be non-empty text")
        script.summaries.append(Summary(item["summary"]))
    elif "error" in item:
        kinds = {kind.value: kind for kind in ErrorClass}
        if item["error"] not in kinds:
            raise ScriptError(f"{where}: 'error' must be one of {', '.join(kinds)}")
        retry_after = item.get("retry_after_s")
        if retry_after is not None and not isinstance(retry_after, int | float):
            raise ScriptError(f"{where}: 'retry_after_s' must be a number")
        message = str(item.get("message", f"scripted {item['error']} failure"))
        script.steps.append(
            Failure(ProviderError(kinds[item["error"]], message, None, retry_after))
        )
    else:
        raise ScriptError(f"{where}: expected user, assistant, tool_result, summary or error")


def _reply_blocks(where: str, item: dict[str, Any]) -> tuple[Block, ...]:
    blocks: list[Block] = []
    thinking = item.get("thinking")
    if thinking is not None:
        if not isinstance(thinking, str):
            raise ScriptError(f"{where}: 'thinking' must be text")
        blocks.append(ThinkingBlock(thinking))
    if not isinstance(item["assistant"], str):
        raise ScriptError(f"{where}: 'assistant' must be text")
    if item["assistant"]:
        blocks.append(TextBlock(item["assistant"]))
    calls = item.get("tool_calls", [])
    if not isinstance(calls, list):
        raise ScriptError(f"{where}: 'tool_calls' must be a list")
    for call in calls:
        if not (
            isinstance(call, dict)
            and isinstance(call.get("id"), str)
            and isinstance(call.get("name"), str)
            and isinstance(call.get("arguments"), dict)
        ):
            raise ScriptError(
                f"{where}: each tool call needs string id and name and object arguments"
            )
        blocks.append(ToolCallBlock(call["id"], call["name"], call["arguments"]))
    if not blocks:
        raise ScriptError(f"{where}: an assistant line needs text, thinking or a tool call")
    return tuple(blocks)


def _number(
    path: Path, number: int, item: dict[str, Any], name: str, default: Any, kind: type
) -> Any:
    value = item.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ScriptError(f"{path}:{number}: {name!r} must be a non-negative number")
    if kind is int and (not isinstance(value, int) or value < 1):
        raise ScriptError(f"{path}:{number}: {name!r} must be a positive integer")
    return kind(value)


__all__ = [
    "SCRIPT_HEADER",
    "Failure",
    "Reply",
    "Script",
    "ScriptError",
    "Step",
    "Summary",
    "ToolMode",
    "UserTurn",
    "load_script",
    "script_from_entries",
]
