"""Claude Code transcripts (``~/.claude/projects/<slug>/<session>.jsonl``).

Records form a tree through ``parentUuid``. The conversation the model saw is the chain from
the last message back to the root, with two repairs real files need:

* parallel tool calls: each result record hangs off the line of its own ``tool_use``, so only
  the last result lies on the chain; results (and response lines) whose parent is on the chain
  are brought back as siblings;
* a compaction boundary starts a new root; the chain continues through its
  ``logicalParentUuid`` so the full history is kept, and the compaction summary is skipped.

One API response is written as several lines sharing ``message.id``; they become one assistant
entry whose usage is the last line's (earlier lines carry streaming partials).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pifold_agent.importers.builder import TraceBuilder, non_negative_int, optional_string
from pifold_agent.importers.jsonl import JsonLines, JsonRecord
from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage

_MESSAGE_TYPES = frozenset({"user", "assistant"})


@dataclass
class _Response:
    """The lines of one API response, merged."""

    first: JsonRecord
    lines: list[JsonRecord] = field(default_factory=list)


def import_claude_code(lines: JsonLines) -> ImportedTrace:
    """Turn a Claude Code transcript into entries."""
    builder = TraceBuilder("claude-code")
    selected = _conversation(lines.records, builder)
    responses = _group_responses(selected)
    tool_names: dict[str, str] = {}
    for response in responses.values():
        for line in response.lines:
            for block in _message_content(line):
                if block.get("type") == "tool_use":
                    tool_names[str(block.get("id"))] = str(block.get("name", ""))
    emitted_responses: set[str] = set()
    for record in selected:
        value = record.value
        record_type = value.get("type")
        if record_type == "assistant":
            response_id = _response_id(record)
            if response_id not in emitted_responses:
                emitted_responses.add(response_id)
                _add_response(responses[response_id], builder)
        elif record_type == "user":
            if value.get("isCompactSummary"):
                continue
            _add_user_record(record, tool_names, builder)
        elif record_type == "system" and value.get("subtype") == "compact_boundary":
            metadata = value.get("compactMetadata")
            metadata = metadata if isinstance(metadata, dict) else {}
            builder.note(
                f"native Claude Code compaction at line {record.line_number} "
                f"(trigger={metadata.get('trigger')}, preTokens={metadata.get('preTokens')}); "
                "its summary is skipped and the full history is kept"
            )
    return builder.finish(lines.skipped_lines)


def _conversation(records: list[JsonRecord], builder: TraceBuilder) -> list[JsonRecord]:
    """The records of the active conversation, in file order."""
    chained = [record for record in records if isinstance(record.value.get("uuid"), str)]
    if not chained:
        return []
    main_line = [record for record in chained if not record.value.get("isSidechain")]
    # A sub-agent file holds only sidechain records; then they are the conversation.
    candidates = main_line or chained
    messages = [record for record in candidates if record.value.get("type") in _MESSAGE_TYPES]
    if not messages:
        return []
    by_uuid = {str(record.value["uuid"]): record for record in chained}
    position = {id(record): index for index, record in enumerate(chained)}
    on_path: dict[int, JsonRecord] = {}
    current: JsonRecord | None = messages[-1]
    while current is not None and id(current) not in on_path:
        on_path[id(current)] = current
        value = current.value
        parent = value.get("parentUuid")
        if parent is None and value.get("subtype") == "compact_boundary":
            parent = value.get("logicalParentUuid")
        if parent is None:
            break
        following = by_uuid.get(str(parent))
        if following is None:
            # A line lost to corruption breaks the chain; the record written just before
            # this one is the best stand-in for the missing parent.
            index = position[id(current)]
            following = chained[index - 1] if index > 0 else None
            builder.note(
                f"line {current.line_number}: parent {parent} is missing (broken line?); "
                "continuing from the previous record"
            )
        current = following
    _add_siblings(chained, on_path)
    selected = [record for record in chained if id(record) in on_path]
    left_out = sum(
        1
        for record in candidates
        if record.value.get("type") in _MESSAGE_TYPES and id(record) not in on_path
    )
    if left_out:
        builder.note(
            f"{left_out} message records are not on the active conversation chain "
            "(abandoned branches or rewritten copies) and were left out"
        )
    return selected


def _add_siblings(chained: list[JsonRecord], on_path: dict[int, JsonRecord]) -> None:
    """Bring back parallel tool results and response lines hanging off the chain."""
    selected_uuids = {str(record.value["uuid"]) for record in on_path.values()}
    changed = True
    while changed:
        changed = False
        call_ids: set[str] = set()
        response_ids: set[str] = set()
        for record in on_path.values():
            if record.value.get("type") == "assistant":
                response_ids.add(_response_id(record))
                call_ids.update(
                    str(block.get("id"))
                    for block in _message_content(record)
                    if block.get("type") == "tool_use"
                )
        for record in chained:
            value = record.value
            if id(record) in on_path or str(value.get("parentUuid")) not in selected_uuids:
                continue
            belongs = (
                value.get("type") == "assistant" and _response_id(record) in response_ids
            ) or (
                value.get("type") == "user"
                and any(
                    block.get("type") == "tool_result" and block.get("tool_use_id") in call_ids
                    for block in _message_content(record)
                )
            )
            if belongs:
                on_path[id(record)] = record
                selected_uuids.add(str(value["uuid"]))
                changed = True


def _group_responses(selected: list[JsonRecord]) -> dict[str, _Response]:
    responses: dict[str, _Response] = {}
    for record in selected:
        if record.value.get("type") == "assistant":
            response = responses.setdefault(_response_id(record), _Response(first=record))
            response.lines.append(record)
    return responses


def _add_response(response: _Response, builder: TraceBuilder) -> None:
    blocks: list[Block] = []
    seen_blocks: set[str] = set()
    seen_call_ids: set[str] = set()
    for line in response.lines:
        for raw in _message_content(line):
            # Some CLI versions repeat earlier blocks on later lines of the same response.
            fingerprint = json.dumps(raw, sort_keys=True)
            if fingerprint in seen_blocks:
                continue
            seen_blocks.add(fingerprint)
            block = _assistant_block(raw, builder)
            if isinstance(block, ToolCallBlock):
                if block.id in seen_call_ids:
                    continue
                seen_call_ids.add(block.id)
            if block is not None:
                blocks.append(block)
    last_message = response.lines[-1].value.get("message", {})
    first = response.first.value
    extra: dict[str, JsonValue] = {"uuid": first.get("uuid")}
    for key in ("requestId", "isApiErrorMessage"):
        if key in first:
            extra[key] = first[key]
    if "stop_reason" in last_message:
        extra["stop_reason"] = last_message["stop_reason"]
    builder.add(
        "assistant",
        blocks,
        preferred_id=_response_id(response.first),
        timestamp=first.get("timestamp"),
        usage=_usage(last_message.get("usage")),
        model=optional_string(last_message.get("model")),
        extra=extra,
    )


def _assistant_block(raw: dict[str, Any], builder: TraceBuilder) -> Block | None:
    block_type = raw.get("type")
    if block_type == "text":
        return TextBlock(str(raw.get("text", "")))
    if block_type == "thinking":
        return ThinkingBlock(str(raw.get("thinking", "")), optional_string(raw.get("signature")))
    if block_type == "redacted_thinking":
        return ThinkingBlock("", optional_string(raw.get("data")))
    if block_type == "tool_use":
        return ToolCallBlock(str(raw.get("id", "")), str(raw.get("name", "")), raw.get("input"))
    if block_type == "image":
        return _image_block(raw)
    builder.note(f"assistant block of type {block_type!r} kept as JSON text")
    return TextBlock(json.dumps(raw, sort_keys=True, ensure_ascii=False))


def _add_user_record(record: JsonRecord, tool_names: dict[str, str], builder: TraceBuilder) -> None:
    """Text and images become a user entry; each tool_result block its own entry, in order."""
    value = record.value
    message = value.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    uuid = value.get("uuid")
    timestamp = value.get("timestamp")
    extra: dict[str, JsonValue] = {"isMeta": True} if value.get("isMeta") else {}
    if isinstance(content, str):
        builder.add(
            "user", [TextBlock(content)], preferred_id=uuid, timestamp=timestamp, extra=extra
        )
        return
    pending: list[Block] = []

    def flush() -> None:
        if pending:
            builder.add("user", list(pending), preferred_id=uuid, timestamp=timestamp, extra=extra)
            pending.clear()

    for raw in content if isinstance(content, list) else []:
        if not isinstance(raw, dict):
            continue
        if raw.get("type") == "tool_result":
            flush()
            call_id = str(raw.get("tool_use_id", ""))
            builder.add(
                "tool_result",
                _result_blocks(raw.get("content")),
                preferred_id=uuid,
                timestamp=timestamp,
                call_id=call_id,
                tool_name=tool_names.get(call_id),
                is_error=bool(raw.get("is_error", False)),
            )
        elif raw.get("type") == "text":
            pending.append(TextBlock(str(raw.get("text", ""))))
        elif raw.get("type") == "image":
            pending.append(_image_block(raw))
        else:
            pending.append(TextBlock(json.dumps(raw, sort_keys=True, ensure_ascii=False)))
    flush()


def _result_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [TextBlock(content)]
    blocks: list[Block] = []
    for raw in content if isinstance(content, list) else []:
        if isinstance(raw, dict) and raw.get("type") == "image":
            blocks.append(_image_block(raw))
        elif isinstance(raw, dict) and raw.get("type") == "text":
            blocks.append(TextBlock(str(raw.get("text", ""))))
        elif raw is not None:
            blocks.append(TextBlock(json.dumps(raw, sort_keys=True, ensure_ascii=False)))
    return blocks


def _image_block(raw: dict[str, Any]) -> Block:
    source = raw.get("source")
    source = source if isinstance(source, dict) else {}
    if source.get("type") == "base64":
        return ImageBlock(str(source.get("media_type", "image/png")), str(source.get("data", "")))
    # A URL or file reference has no inline bytes; keep the reference visible as text.
    return TextBlock(f"[image: {json.dumps(source, sort_keys=True, ensure_ascii=False)}]")


def _message_content(record: JsonRecord) -> list[dict[str, Any]]:
    message = record.value.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict)]


def _response_id(record: JsonRecord) -> str:
    message = record.value.get("message")
    message_id = message.get("id") if isinstance(message, dict) else None
    if isinstance(message_id, str) and message_id:
        return message_id
    request_id = record.value.get("requestId")
    if isinstance(request_id, str) and request_id:
        return request_id
    return str(record.value.get("uuid"))


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    return Usage(
        input_tokens=non_negative_int(raw.get("input_tokens")),
        output_tokens=non_negative_int(raw.get("output_tokens")),
        cache_read_tokens=non_negative_int(raw.get("cache_read_input_tokens")),
        cache_write_tokens=non_negative_int(raw.get("cache_creation_input_tokens")),
    )
