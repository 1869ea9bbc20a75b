"""OpenAI Codex CLI rollouts (``~/.codex/sessions/.../rollout-*.jsonl``).

Only ``response_item`` records are what the model sees. Consecutive model-output items
(reasoning, assistant message, function and custom tool calls) are the output of one model
request and become one assistant entry; the ``token_count`` event that follows a request
carries its usage. Codex reports ``input_tokens`` including the cached part, so the uncached
input is ``input_tokens - cached_input_tokens``. A ``compacted`` record's replacement history
is skipped: pifold is fed the full history and the compaction is noted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pifold_agent.importers.builder import (
    TraceBuilder,
    non_negative_int,
    optional_string,
    parse_arguments,
)
from pifold_agent.importers.jsonl import JsonLines
from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue
from pifold_core.entries import (
    Block,
    EntryKind,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)

_MODEL_OUTPUT_TYPES = frozenset(
    {"reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
)
_TOOL_OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output"})


@dataclass
class _Request:
    """The output items of one model request, collected until the next input item."""

    timestamp: Any
    blocks: list[Block] = field(default_factory=list)
    usage: Usage | None = None
    model: str | None = None


def import_codex(lines: JsonLines) -> ImportedTrace:
    """Turn a Codex rollout into entries."""
    builder = TraceBuilder("codex")
    pending: list[_Request | tuple[str, dict[str, Any]]] = []
    current: _Request | None = None
    model: str | None = None
    last_total: Any = None
    last_prompt_tokens: int | None = None
    tool_names: dict[str, str] = {}
    for record in lines.records:
        value = record.value
        record_type = value.get("type")
        payload = value.get("payload")
        payload = payload if isinstance(payload, dict) else {}
        timestamp = value.get("timestamp")
        if record_type == "session_meta":
            instructions = payload.get("base_instructions")
            text = instructions.get("text") if isinstance(instructions, dict) else None
            if isinstance(text, str) and text:
                pending.append(("instructions", {"text": text, "timestamp": timestamp}))
        elif record_type == "turn_context":
            model = optional_string(payload.get("model")) or model
        elif record_type == "response_item":
            item_type = payload.get("type")
            if _is_model_output(payload):
                if current is None:
                    current = _Request(timestamp=timestamp, model=model)
                    pending.append(current)
                _append_output(current, payload, tool_names)
            else:
                current = None
                pending.append(("item", {**payload, "_timestamp": timestamp}))
                if item_type not in _TOOL_OUTPUT_TYPES and item_type != "message":
                    builder.note(f"line {record.line_number}: response item {item_type!r} kept")
        elif record_type == "event_msg" and payload.get("type") == "token_count":
            info = payload.get("info")
            if not isinstance(info, dict):
                continue
            total = info.get("total_token_usage")
            if total is not None and total == last_total:
                continue  # a repeated report (rate-limit refresh), not a new request
            last_total = total
            request = _latest_request(pending)
            usage = _usage(info.get("last_token_usage"))
            if request is not None and request.usage is None and usage is not None:
                request.usage = usage
                last_prompt_tokens = usage.prompt_tokens
        elif record_type == "compacted":
            current = None
            replacement = payload.get("replacement_history")
            replaced = len(replacement) if isinstance(replacement, list) else 0
            builder.note(
                f"native Codex compaction at line {record.line_number}: its replacement history "
                f"of {replaced} items is skipped and the full history is kept (no tokens-before "
                f"recorded; the last request before it had a {last_prompt_tokens}-token prompt)"
            )
    for item in pending:
        if isinstance(item, _Request):
            builder.add(
                "assistant",
                item.blocks,
                timestamp=item.timestamp,
                usage=item.usage,
                model=item.model,
            )
        else:
            _add_input_item(item, tool_names, builder)
    return builder.finish(lines.skipped_lines)


def _is_model_output(payload: dict[str, Any]) -> bool:
    item_type = payload.get("type")
    if item_type == "message":
        return payload.get("role") == "assistant"
    return isinstance(item_type, str) and item_type in _MODEL_OUTPUT_TYPES


def _latest_request(pending: list[_Request | tuple[str, dict[str, Any]]]) -> _Request | None:
    for item in reversed(pending):
        if isinstance(item, _Request):
            return item
    return None


def _append_output(request: _Request, payload: dict[str, Any], tool_names: dict[str, str]) -> None:
    item_type = payload.get("type")
    if item_type == "message":
        request.blocks.extend(_message_blocks(payload.get("content")))
    elif item_type == "reasoning":
        parts = [
            str(part.get("text", ""))
            for key in ("summary", "content")
            for part in (payload.get(key) or [])
            if isinstance(part, dict)
        ]
        request.blocks.append(
            ThinkingBlock("\n".join(parts), optional_string(payload.get("encrypted_content")))
        )
    elif item_type in ("function_call", "custom_tool_call", "local_shell_call"):
        call_id = str(payload.get("call_id") or payload.get("id") or "")
        name = str(
            payload.get("name") or ("local_shell" if item_type == "local_shell_call" else "")
        )
        if item_type == "function_call":
            arguments: JsonValue = parse_arguments(payload.get("arguments"))
        elif item_type == "custom_tool_call":
            # Freeform tools take raw text (a patch for apply_patch), not JSON.
            arguments = payload.get("input")
        else:
            arguments = payload.get("action")
        tool_names[call_id] = name
        request.blocks.append(ToolCallBlock(call_id, name, arguments))
    else:
        request.blocks.append(TextBlock(json.dumps(payload, sort_keys=True, ensure_ascii=False)))


def _add_input_item(
    item: tuple[str, dict[str, Any]], tool_names: dict[str, str], builder: TraceBuilder
) -> None:
    kind, payload = item
    if kind == "instructions":
        builder.add(
            "note",
            [TextBlock(payload["text"])],
            timestamp=payload["timestamp"],
            extra={"source": "session_meta.base_instructions"},
        )
        return
    timestamp = payload.get("_timestamp")
    item_type = payload.get("type")
    if item_type in _TOOL_OUTPUT_TYPES:
        call_id = str(payload.get("call_id", ""))
        output = payload.get("output")
        is_error = isinstance(output, dict) and output.get("success") is False
        builder.add(
            "tool_result",
            _output_blocks(output),
            timestamp=timestamp,
            call_id=call_id,
            tool_name=tool_names.get(call_id),
            is_error=is_error,
        )
    elif item_type == "message":
        role = payload.get("role")
        kind_of_entry: EntryKind = "user" if role == "user" else "note"
        extra: dict[str, JsonValue] = {} if role == "user" else {"role": role}
        builder.add(
            kind_of_entry,
            _message_blocks(payload.get("content")),
            timestamp=timestamp,
            extra=extra,
        )
    else:
        clean = {key: value for key, value in payload.items() if key != "_timestamp"}
        builder.add(
            "note",
            [TextBlock(json.dumps(clean, sort_keys=True, ensure_ascii=False))],
            timestamp=timestamp,
            extra={"source": f"response_item.{item_type}"},
        )


def _message_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [TextBlock(content)]
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        part_type = part.get("type")
        if part_type in ("input_text", "output_text", "text"):
            blocks.append(TextBlock(str(part.get("text", ""))))
        elif part_type == "input_image":
            blocks.append(_image_block(part.get("image_url")))
        else:
            blocks.append(TextBlock(json.dumps(part, sort_keys=True, ensure_ascii=False)))
    return blocks


def _output_blocks(output: Any) -> list[Block]:
    """A tool output: plain text, a list of content items, or ``{content, success}``."""
    if isinstance(output, str):
        return [TextBlock(output)]
    if isinstance(output, list):
        return _message_blocks(output)
    if isinstance(output, dict) and "content" in output:
        return _output_blocks(output["content"])
    return [TextBlock(json.dumps(output, sort_keys=True, ensure_ascii=False))]


def _image_block(url: Any) -> Block:
    text = str(url or "")
    if text.startswith("data:") and ";base64," in text:
        header, data = text[len("data:") :].split(";base64,", 1)
        return ImageBlock(header or "image/png", data)
    return TextBlock(f"[image: {text}]")


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    input_tokens = non_negative_int(raw.get("input_tokens"))
    cached = min(non_negative_int(raw.get("cached_input_tokens")), input_tokens)
    return Usage(
        input_tokens=input_tokens - cached,
        output_tokens=non_negative_int(raw.get("output_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=0,
    )
