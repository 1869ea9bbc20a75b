"""Entries to and from the lines of a Pi tree-format session file (pi-host §3), losslessly.

On disk everything is Pi's camelCase: a ``session`` header, then ``message`` entries whose
``message`` is a Pi message (``user``, ``assistant``, ``toolResult``, or ``custom`` for host
text), and ``compaction`` entries. Reading a line back gives exactly the
:class:`~pifold_core.entries.Entry` that was written (same record bytes, same digest), which
is what lets a resumed agent give the engine the entries it logged.

The loop's entry metadata is mapped to Pi's fields where Pi has one (``stopReason``,
``provider``, ``errorMessage``, a tool result's ``details``); anything else is kept under a
``pifold`` object that Pi ignores. Pi writes ``toolUse`` where the loop says ``tool_use``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from pifold_agent.importers.builder import to_unix_ms
from pifold_core.canonical import JsonValue
from pifold_core.entries import (
    Block,
    Entry,
    EntryError,
    EntryKind,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

SESSION_VERSION = 3
"""Pi's current session file version."""

NOTE_CUSTOM_TYPE = "pifold-note"
"""The ``customType`` of host text written as a Pi ``custom`` message."""

_ASSISTANT_FIELDS = {"stop_reason": "stopReason", "provider": "provider", "error": "errorMessage"}
"""Loop metadata with a Pi field of its own on an assistant message."""

_TOOL_RESULT_FIELDS = {"details": "details"}
"""Loop metadata with a Pi field of its own on a tool result."""

_STOP_REASONS_ON_DISK = {"tool_use": "toolUse"}
_STOP_REASONS_READ = {value: key for key, value in _STOP_REASONS_ON_DISK.items()}

EXTRA_FIELD = "pifold"
"""The message field holding metadata Pi has no field for."""


@dataclass(frozen=True, slots=True)
class CompactionRecord:
    """A ``compaction`` entry as read back."""

    id: str
    """The entry's own id."""
    summary: str
    """The summary the model sees in place of the compacted history."""
    first_kept_entry_id: str
    """The first message kept verbatim after the summary."""
    tokens_before: int
    """The context size before the compaction."""
    details: Mapping[str, JsonValue]
    """Pi's ``details`` (``readFiles`` / ``modifiedFiles``), empty when absent."""
    timestamp_ms: int
    """When it was written."""


def compaction_record(line: Mapping[str, Any]) -> CompactionRecord:
    """A ``compaction`` line as read back; a field of the wrong type (a hand edit) reads as
    empty, never as an error."""
    details = line.get("details")
    tokens = line.get("tokensBefore")
    converted = to_unix_ms(line.get("timestamp"))
    return CompactionRecord(
        id=str(line["id"]),
        summary=str(line.get("summary", "")),
        first_kept_entry_id=str(line.get("firstKeptEntryId", "")),
        tokens_before=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else 0,
        details=details if isinstance(details, dict) else {},
        timestamp_ms=converted if converted is not None else 0,
    )


class SessionFormatError(ValueError):
    """A session line does not hold a readable entry; the message names the field."""


def iso_timestamp(timestamp_ms: int) -> str:
    """Pi's entry timestamp: ISO 8601 in UTC with milliseconds and a ``Z``."""
    moment = datetime.fromtimestamp(timestamp_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{timestamp_ms % 1000:03d}Z"


def header_line(session_id: str, cwd: str, timestamp_ms: int) -> dict[str, JsonValue]:
    """Line 1 of a session file."""
    return {
        "type": "session",
        "version": SESSION_VERSION,
        "id": session_id,
        "timestamp": iso_timestamp(timestamp_ms),
        "cwd": cwd,
    }


def _block_to_disk(block: Block) -> dict[str, JsonValue]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        record: dict[str, JsonValue] = {"type": "thinking", "thinking": block.text}
        if block.signature is not None:
            record["thinkingSignature"] = block.signature
        return record
    if isinstance(block, ToolCallBlock):
        call: dict[str, JsonValue] = {"type": "toolCall", "id": block.id, "name": block.name}
        call["arguments"] = block.arguments
        return call
    return {"type": "image", "data": block.data, "mimeType": block.media_type}


def _block_from_disk(record: Any) -> Block:
    if not isinstance(record, Mapping):
        raise SessionFormatError("a content block is not a JSON object")
    kind = record.get("type")
    try:
        if kind == "text":
            return TextBlock(_string(record, "text"))
        if kind == "thinking":
            signature = record.get("thinkingSignature")
            if signature is not None and not isinstance(signature, str):
                raise SessionFormatError("thinking block field 'thinkingSignature' is not text")
            return ThinkingBlock(_string(record, "thinking"), signature)
        if kind == "toolCall":
            if "arguments" not in record:
                raise SessionFormatError("toolCall block has no 'arguments'")
            arguments = record["arguments"]
            return ToolCallBlock(_string(record, "id"), _string(record, "name"), arguments)
        if kind == "image":
            return ImageBlock(_string(record, "mimeType"), _string(record, "data"))
    except EntryError as error:
        raise SessionFormatError(str(error)) from None
    raise SessionFormatError(f"unknown content block type {kind!r}")


def _string(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise SessionFormatError(f"field {name!r} must be text, got {type(value).__name__}")
    return value


def _usage_to_disk(usage: Usage) -> dict[str, JsonValue]:
    return {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "cacheRead": usage.cache_read_tokens,
        "cacheWrite": usage.cache_write_tokens,
        "totalTokens": usage.total_tokens,
    }


def _usage_from_disk(record: Any) -> Usage:
    if not isinstance(record, Mapping):
        raise SessionFormatError("field 'usage' must be an object")
    # Never refused: an unknown figure is null, and figures an earlier release wrote as the
    # provider sent them read as unknown (pifold_core.usage), as the engine's log reads them.
    return Usage.from_named(record, ("input", "output", "cacheRead", "cacheWrite"))


def message_of(entry: Entry) -> dict[str, JsonValue]:
    """The Pi message that stands for ``entry`` on disk."""
    content: list[JsonValue] = [_block_to_disk(block) for block in entry.content]
    extra = dict(entry.extra)
    message: dict[str, JsonValue]
    if entry.kind == "user":
        message = {"role": "user", "content": content}
    elif entry.kind == "note":
        message = {"role": "custom", "customType": NOTE_CUSTOM_TYPE, "content": content}
        message["display"] = True
    elif entry.kind == "tool_result":
        message = {
            "role": "toolResult",
            "toolCallId": entry.call_id,
            "toolName": entry.tool_name,
            "content": content,
            "isError": entry.is_error,
        }
        for ours, theirs in _TOOL_RESULT_FIELDS.items():
            if ours in extra:
                message[theirs] = extra.pop(ours)
    else:
        message = {"role": "assistant", "content": content}
        for ours, theirs in _ASSISTANT_FIELDS.items():
            if ours in extra:
                value = extra.pop(ours)
                if ours == "stop_reason" and isinstance(value, str):
                    value = _STOP_REASONS_ON_DISK.get(value, value)
                message[theirs] = value
        if entry.model is not None:
            message["model"] = entry.model
        if entry.usage is not None:
            message["usage"] = _usage_to_disk(entry.usage)
    message["timestamp"] = entry.timestamp_ms
    if extra:
        message[EXTRA_FIELD] = extra
    return message


def message_line(entry: Entry, parent_id: str | None) -> dict[str, JsonValue]:
    """The ``message`` entry line for ``entry``, a child of ``parent_id``."""
    return {
        "type": "message",
        "id": entry.id,
        "parentId": parent_id,
        "timestamp": iso_timestamp(entry.timestamp_ms),
        "message": message_of(entry),
    }


def entry_of(entry_id: str, message: Any) -> Entry:
    """The entry a ``message`` line holds.

    Raises:
        SessionFormatError: naming what is missing or malformed.
    """
    if not isinstance(message, Mapping):
        raise SessionFormatError(f"entry {entry_id}: field 'message' must be an object")
    role = message.get("role")
    timestamp = message.get("timestamp")
    if not isinstance(timestamp, int) or isinstance(timestamp, bool):
        raise SessionFormatError(f"entry {entry_id}: message 'timestamp' must be integer ms")
    raw_content = message.get("content")
    if not isinstance(raw_content, list):
        raise SessionFormatError(f"entry {entry_id}: message 'content' must be a list")
    content = tuple(_block_from_disk(block) for block in raw_content)
    raw_extra = message.get(EXTRA_FIELD, {})
    if not isinstance(raw_extra, Mapping):
        raise SessionFormatError(f"entry {entry_id}: field {EXTRA_FIELD!r} must be an object")
    extra: dict[str, JsonValue] = dict(raw_extra)
    fields: dict[str, Any] = {}
    kind: EntryKind
    if role == "user":
        kind = "user"
    elif role == "custom":
        kind = "note"
    elif role == "toolResult":
        kind = "tool_result"
        fields["call_id"] = message.get("toolCallId")
        fields["tool_name"] = message.get("toolName")
        fields["is_error"] = message.get("isError") is True
        for ours, theirs in _TOOL_RESULT_FIELDS.items():
            if theirs in message:
                extra[ours] = cast(JsonValue, message[theirs])
    elif role == "assistant":
        kind = "assistant"
        for ours, theirs in _ASSISTANT_FIELDS.items():
            if theirs in message:
                value = message[theirs]
                if ours == "stop_reason" and isinstance(value, str):
                    value = _STOP_REASONS_READ.get(value, value)
                extra[ours] = cast(JsonValue, value)
        model = message.get("model")
        if model is not None and not isinstance(model, str):
            raise SessionFormatError(f"entry {entry_id}: field 'model' must be text")
        fields["model"] = model
        if "usage" in message:
            fields["usage"] = _usage_from_disk(message["usage"])
    else:
        raise SessionFormatError(f"entry {entry_id}: unknown message role {role!r}")
    try:
        return Entry(entry_id, kind, timestamp, content, extra=extra, **fields)
    except EntryError as error:
        raise SessionFormatError(str(error)) from None


def compaction_line(
    entry_id: str,
    parent_id: str | None,
    timestamp_ms: int,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int,
    details: Mapping[str, JsonValue] | None = None,
) -> dict[str, JsonValue]:
    """Pi's ``compaction`` entry line."""
    line: dict[str, JsonValue] = {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": iso_timestamp(timestamp_ms),
        "summary": summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
    if details is not None:
        line["details"] = dict(details)
    return line


__all__ = [
    "EXTRA_FIELD",
    "NOTE_CUSTOM_TYPE",
    "SESSION_VERSION",
    "CompactionRecord",
    "SessionFormatError",
    "compaction_line",
    "compaction_record",
    "entry_of",
    "header_line",
    "iso_timestamp",
    "message_line",
    "message_of",
]
