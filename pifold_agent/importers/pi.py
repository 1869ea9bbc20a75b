"""Pi coding-agent sessions: version 1 (linear) and versions 2/3 (an id/parentId tree).

In a tree session the active conversation is the path from the last entry back to the root;
entries on abandoned branches are not part of what the model saw and are left out. Pi's own
``compaction`` entries are skipped: pifold folds instead of compacting, so it is fed the full
history, and a note records where Pi compacted and how large the context was then.
"""

from __future__ import annotations

from typing import Any

from pifold_agent.importers.builder import TraceBuilder, non_negative_int, optional_string
from pifold_agent.importers.jsonl import JsonLines, JsonRecord
from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage

_IGNORED_ENTRY_TYPES = frozenset(
    {"session", "model_change", "thinking_level_change", "label", "session_info", "custom"}
)
"""Bookkeeping entries that never reach the model (``custom`` is extension state)."""


def pi_format(lines: JsonLines) -> str:
    """``pi-v3`` for tree sessions (a version >= 2 header or parent links), else ``pi-v1``."""
    for record in lines.records:
        value = record.value
        if value.get("type") == "session":
            version = value.get("version")
            if isinstance(version, int) and version >= 2:
                return "pi-v3"
        elif "parentId" in value:
            return "pi-v3"
    return "pi-v1"


def import_pi(lines: JsonLines) -> ImportedTrace:
    """Turn a Pi session's records into entries."""
    trace_format = pi_format(lines)
    builder = TraceBuilder(trace_format)
    records = [record for record in lines.records if record.value.get("type") != "session"]
    if trace_format == "pi-v3":
        records = _active_path(records, builder)
    for position, record in enumerate(records):
        _import_record(record, position, builder)
    return builder.finish(lines.skipped_lines)


def _active_path(records: list[JsonRecord], builder: TraceBuilder) -> list[JsonRecord]:
    """Follow parentId from the last entry to the root and return that path in order."""
    by_id: dict[str, JsonRecord] = {}
    for record in records:
        entry_id = record.value.get("id")
        if isinstance(entry_id, str):
            by_id[entry_id] = record
    with_ids = [record for record in records if isinstance(record.value.get("id"), str)]
    if not with_ids:
        return records
    path: list[JsonRecord] = []
    seen: set[str] = set()
    current: JsonRecord | None = with_ids[-1]
    while current is not None:
        current_id = str(current.value["id"])
        if current_id in seen:
            builder.note(f"parentId cycle at entry {current_id}; the path stops there")
            break
        seen.add(current_id)
        path.append(current)
        parent_id = current.value.get("parentId")
        if parent_id is None:
            break
        current = by_id.get(str(parent_id))
        if current is None:
            builder.note(
                f"entry {current_id} names a parent {parent_id!r} that is not in the file; "
                "the conversation before it is missing"
            )
    path.reverse()
    abandoned = len(with_ids) - len(path)
    if abandoned:
        builder.note(f"{abandoned} entries on abandoned branches are not on the active path")
    return path


def _import_record(record: JsonRecord, position: int, builder: TraceBuilder) -> None:
    value = record.value
    entry_type = value.get("type")
    entry_id = value.get("id")
    timestamp = value.get("timestamp")
    if entry_type in _IGNORED_ENTRY_TYPES:
        return
    if entry_type == "message" and isinstance(value.get("message"), dict):
        _import_message(value["message"], entry_id, timestamp, builder)
    elif entry_type == "compaction":
        tokens_before = value.get("tokensBefore")
        kept_from = value.get("firstKeptEntryId", value.get("firstKeptEntryIndex"))
        builder.note(
            f"native Pi compaction at line {record.line_number} (entry {position} of the active "
            f"path): tokensBefore={tokens_before}, first kept entry {kept_from}; its summary is "
            "skipped and the full history is kept"
        )
    elif entry_type == "branch_summary":
        summary = str(value.get("summary", ""))
        builder.add(
            "note",
            [TextBlock(summary)],
            preferred_id=entry_id,
            timestamp=timestamp,
            extra={"source": "branch_summary", "fromId": value.get("fromId")},
        )
    elif entry_type == "custom_message":
        builder.add(
            "note",
            _content_blocks(value.get("content")),
            preferred_id=entry_id,
            timestamp=timestamp,
            extra={"source": "custom_message", "customType": value.get("customType")},
        )
    else:
        builder.note(f"line {record.line_number}: unknown Pi entry type {entry_type!r} skipped")


def _import_message(
    message: dict[str, Any], entry_id: Any, entry_timestamp: Any, builder: TraceBuilder
) -> None:
    role = message.get("role")
    # The message's own ms timestamp is when the host created it; the entry's is when it was
    # written, which for v1 headers can even precede the first message.
    timestamp = message.get("timestamp", entry_timestamp)
    if role == "user":
        builder.add(
            "user",
            _content_blocks(message.get("content")),
            preferred_id=entry_id,
            timestamp=timestamp,
        )
    elif role == "assistant":
        _import_assistant(message, entry_id, timestamp, builder)
    elif role == "toolResult":
        builder.add(
            "tool_result",
            _content_blocks(message.get("content")),
            preferred_id=entry_id,
            timestamp=timestamp,
            call_id=optional_string(message.get("toolCallId")),
            tool_name=optional_string(message.get("toolName")),
            is_error=bool(message.get("isError", False)),
        )
    elif role == "bashExecution":
        if message.get("excludeFromContext"):
            return
        builder.add(
            "user",
            [TextBlock(bash_execution_text(message))],
            preferred_id=entry_id,
            timestamp=timestamp,
            extra={"source": "bashExecution"},
        )
    elif role == "custom":
        builder.add(
            "note",
            _content_blocks(message.get("content")),
            preferred_id=entry_id,
            timestamp=timestamp,
            extra={"source": "custom", "customType": message.get("customType")},
        )
    elif role == "branchSummary":
        builder.add(
            "note",
            [TextBlock(str(message.get("summary", "")))],
            preferred_id=entry_id,
            timestamp=timestamp,
            extra={"source": "branchSummary"},
        )
    elif role == "compactionSummary":
        builder.note(
            f"native Pi compaction summary message {entry_id} skipped "
            f"(tokensBefore={message.get('tokensBefore')}); the full history is kept"
        )
    else:
        builder.note(f"message {entry_id}: unknown Pi role {role!r} skipped")


def _import_assistant(
    message: dict[str, Any], entry_id: Any, timestamp: Any, builder: TraceBuilder
) -> None:
    blocks: list[Block] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        block_type = block.get("type")
        if block_type == "text":
            blocks.append(TextBlock(str(block.get("text", ""))))
        elif block_type == "thinking":
            signature = block.get("thinkingSignature")
            blocks.append(
                ThinkingBlock(
                    str(block.get("thinking", "")),
                    signature if isinstance(signature, str) else None,
                )
            )
        elif block_type == "toolCall":
            blocks.append(
                ToolCallBlock(
                    str(block.get("id", "")), str(block.get("name", "")), block.get("arguments")
                )
            )
        elif block_type == "image":
            blocks.extend(_content_blocks([block]))
    extra: dict[str, JsonValue] = {
        key: message[key]
        for key in ("api", "provider", "stopReason", "errorMessage", "responseId")
        if key in message
    }
    kept = message.get("pifold")
    if isinstance(kept, dict) and isinstance(kept.get("provider_data"), dict):
        # pifold's own session: what the reply said, its cache verdict among it.
        extra["provider_data"] = kept["provider_data"]
    builder.add(
        "assistant",
        blocks,
        preferred_id=entry_id,
        timestamp=timestamp,
        usage=_usage(message.get("usage")),
        model=optional_string(message.get("model")),
        extra=extra,
    )


def bash_execution_text(message: dict[str, Any]) -> str:
    """The user-context text Pi builds for a ``!command`` run in its terminal."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, int) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def _content_blocks(content: Any) -> list[Block]:
    """Pi user/tool content: a string, or a list of text and image blocks."""
    if isinstance(content, str):
        return [TextBlock(content)]
    blocks: list[Block] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            blocks.append(TextBlock(str(block.get("text", ""))))
        elif block.get("type") == "image":
            blocks.append(
                ImageBlock(str(block.get("mimeType", "image/png")), str(block.get("data", "")))
            )
    return blocks


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    return Usage(
        input_tokens=non_negative_int(raw.get("input")),
        output_tokens=non_negative_int(raw.get("output")),
        cache_read_tokens=non_negative_int(raw.get("cacheRead")),
        cache_write_tokens=non_negative_int(raw.get("cacheWrite")),
    )
