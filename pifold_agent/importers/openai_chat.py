"""OpenAI chat-completions messages, shared by the mini-swe-agent and SWE-agent importers.

Both agents record the exact chat they sent: ``system``/``user``/``assistant``/``tool``
messages whose content is a string or a list of ``text``/``image_url`` parts, assistant
``tool_calls`` with JSON-string arguments, and tool messages tied back by ``tool_call_id``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pifold_agent.importers.builder import TraceBuilder, non_negative_int, parse_arguments
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, ImageBlock, TextBlock, ToolCallBlock, Usage


class ChatImporter:
    """Adds chat messages to a builder, remembering tool names by call id."""

    def __init__(self, builder: TraceBuilder) -> None:
        self.builder = builder
        self.tool_names: dict[str, str] = {}

    def add(
        self,
        message: Mapping[str, Any],
        *,
        preferred_id: Any = None,
        timestamp: Any = None,
        usage: Usage | None = None,
        model: str | None = None,
        extra: Mapping[str, JsonValue] | None = None,
    ) -> None:
        """Add one message; roles other than the four chat roles are noted and skipped."""
        role = message.get("role")
        content = content_blocks(message.get("content"))
        if role in ("system", "developer"):
            self.builder.add(
                "note",
                content,
                preferred_id=preferred_id,
                timestamp=timestamp,
                extra={"role": str(role), **(extra or {})},
            )
        elif role == "user":
            self.builder.add(
                "user", content, preferred_id=preferred_id, timestamp=timestamp, extra=extra
            )
        elif role == "assistant":
            calls = self._tool_calls(message.get("tool_calls"))
            self.builder.add(
                "assistant",
                [*content, *calls],
                preferred_id=preferred_id,
                timestamp=timestamp,
                usage=usage,
                model=model,
                extra=extra,
            )
        elif role == "tool":
            call_id = _result_call_id(message)
            self.builder.add(
                "tool_result",
                content,
                preferred_id=preferred_id,
                timestamp=timestamp,
                call_id=call_id,
                tool_name=self.tool_names.get(call_id or ""),
                extra=extra,
            )
        else:
            self.builder.note(f"message with role {role!r} skipped")

    def _tool_calls(self, raw: Any) -> list[Block]:
        calls: list[Block] = []
        seen: set[str] = set()
        for index, call in enumerate(raw if isinstance(raw, list) else []):
            if not isinstance(call, dict):
                continue
            function = call.get("function")
            function = function if isinstance(function, dict) else {}
            call_id = str(call.get("id") or f"call-{index}")
            if call_id in seen:
                continue
            seen.add(call_id)
            name = str(function.get("name", ""))
            self.tool_names[call_id] = name
            calls.append(ToolCallBlock(call_id, name, parse_arguments(function.get("arguments"))))
        return calls


def content_blocks(content: Any) -> list[Block]:
    """Chat content (a string or a list of parts) as blocks; unknown parts kept as JSON text."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    blocks: list[Block] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, dict) and part.get("type") == "text":
            blocks.append(TextBlock(str(part.get("text", ""))))
        elif isinstance(part, dict) and part.get("type") == "image_url":
            blocks.append(_image_block(part.get("image_url")))
        else:
            blocks.append(TextBlock(json.dumps(part, sort_keys=True, ensure_ascii=False)))
    return blocks


def chat_usage(raw: Any) -> Usage | None:
    """Usage of a chat completion: ``prompt_tokens`` includes the cached part."""
    if not isinstance(raw, dict):
        return None
    prompt = non_negative_int(raw.get("prompt_tokens"))
    details = raw.get("prompt_tokens_details")
    cached = non_negative_int(details.get("cached_tokens")) if isinstance(details, dict) else 0
    if not cached:
        cached = non_negative_int(raw.get("prompt_cache_hit_tokens"))
    cached = min(cached, prompt)
    return Usage(
        input_tokens=prompt - cached,
        output_tokens=non_negative_int(raw.get("completion_tokens")),
        cache_read_tokens=cached,
        cache_write_tokens=0,
    )


def _result_call_id(message: Mapping[str, Any]) -> str | None:
    call_id = message.get("tool_call_id")
    if isinstance(call_id, str) and call_id:
        return call_id
    call_ids = message.get("tool_call_ids")
    if isinstance(call_ids, list) and call_ids and isinstance(call_ids[0], str):
        return call_ids[0]
    return None


def _image_block(raw: Any) -> Block:
    url = raw.get("url") if isinstance(raw, dict) else raw
    text = str(url or "")
    if text.startswith("data:") and ";base64," in text:
        media_type, data = text[len("data:") :].split(";base64,", 1)
        return ImageBlock(media_type or "image/png", data)
    return TextBlock(f"[image: {text}]")
