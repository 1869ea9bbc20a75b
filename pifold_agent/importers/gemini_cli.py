"""Gemini CLI chat histories: a JSON array of Gemini API ``Content`` objects.

Model contents become assistant entries (one per request); ``functionCall`` parts become
tool calls and ``functionResponse`` parts of user contents become tool results. Older
histories lack call ids, so ids are synthesised from the call's position (``gemini-call-0007``)
and responses without an id are paired with the oldest unanswered call of the same name.
Opaque ``thoughtSignature`` values are kept in the entry's ``extra``. The files record neither
usage nor timestamps; the builder synthesises increasing timestamps.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

from pifold_agent.importers.builder import TraceBuilder, optional_string
from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock


def gemini_history(document: Any) -> list[Any] | None:
    """The Content list of a history file (bare, or wrapped as ``{history: [...]}``)."""
    history = document.get("history") if isinstance(document, dict) else document
    if not isinstance(history, list) or not history:
        return None
    looks_like_content = all(
        isinstance(item, dict)
        and item.get("role") in ("user", "model")
        and isinstance(item.get("parts"), list)
        for item in history
    )
    return history if looks_like_content else None


def import_gemini_cli(history: list[dict[str, Any]]) -> ImportedTrace:
    """Turn a Gemini CLI history into entries."""
    builder = TraceBuilder("gemini-cli")
    unanswered: dict[str, deque[str]] = {}
    call_count = 0
    orphan_count = 0
    for content in history:
        parts = [part for part in content["parts"] if isinstance(part, dict)]
        if content["role"] == "model":
            blocks: list[Block] = []
            signatures: list[JsonValue] = []
            for part in parts:
                if "functionCall" in part:
                    call = part["functionCall"] if isinstance(part["functionCall"], dict) else {}
                    call_id = optional_string(call.get("id")) or f"gemini-call-{call_count:04d}"
                    call_count += 1
                    name = str(call.get("name", ""))
                    unanswered.setdefault(name, deque()).append(call_id)
                    blocks.append(ToolCallBlock(call_id, name, call.get("args", {})))
                elif part.get("thought") is True:
                    blocks.append(ThinkingBlock(str(part.get("text", ""))))
                elif "text" in part:
                    blocks.append(TextBlock(str(part["text"])))
                elif "inlineData" in part:
                    blocks.append(_inline_image(part["inlineData"]))
                if isinstance(part.get("thoughtSignature"), str):
                    # The signature belongs to the part it sits on; remember which one.
                    signatures.append(
                        {"block": len(blocks) - 1, "signature": part["thoughtSignature"]}
                    )
            extra: dict[str, JsonValue] = {"thoughtSignatures": signatures} if signatures else {}
            builder.add("assistant", blocks, extra=extra)
            continue
        pending: list[Block] = []
        for part in parts:
            if "functionResponse" in part:
                if pending:
                    builder.add("user", list(pending))
                    pending.clear()
                response = part["functionResponse"]
                response = response if isinstance(response, dict) else {}
                name = str(response.get("name", ""))
                queue = unanswered.get(name)
                recorded_id = optional_string(response.get("id"))
                if recorded_id is not None:
                    call_id = recorded_id
                    if queue and call_id in queue:
                        queue.remove(call_id)
                elif queue:
                    call_id = queue.popleft()
                else:
                    call_id = f"gemini-orphan-{orphan_count:04d}"
                    orphan_count += 1
                builder.add(
                    "tool_result",
                    [TextBlock(_response_text(response.get("response")))],
                    call_id=call_id,
                    tool_name=name,
                    is_error=isinstance(response.get("response"), dict)
                    and "error" in response["response"],
                )
            elif "text" in part:
                pending.append(TextBlock(str(part["text"])))
            elif "inlineData" in part:
                pending.append(_inline_image(part["inlineData"]))
            else:
                pending.append(TextBlock(json.dumps(part, sort_keys=True, ensure_ascii=False)))
        if pending:
            builder.add("user", pending)
    return builder.finish(0)


def _response_text(response: Any) -> str:
    """The tool output as the model reads it: the bare ``output`` string when that is all."""
    if (
        isinstance(response, dict)
        and set(response) == {"output"}
        and isinstance(response["output"], str)
    ):
        return str(response["output"])
    if isinstance(response, str):
        return response
    return json.dumps(response, sort_keys=True, ensure_ascii=False)


def _inline_image(raw: Any) -> Block:
    raw = raw if isinstance(raw, dict) else {}
    mime_type = str(raw.get("mimeType", "application/octet-stream"))
    if mime_type.startswith("image/"):
        return ImageBlock(mime_type, str(raw.get("data", "")))
    return TextBlock(f"[inline data of type {mime_type}, {len(str(raw.get('data', '')))} chars]")
