"""Building one assistant message from streamed pieces, shared by every adapter.

Each provider streams blocks under its own keys (Anthropic's block index, OpenAI's item id
and content index, a Chat Completions tool call's index). :class:`BlockAssembler` gives each
block its position in the message, turns every piece into the matching stream event, and
produces the complete blocks at the end, tool call arguments parsed.

It also holds the two wire rules every adapter needs when it sends a message back: call ids
normalised for any provider, and tool arguments serialised with sorted keys. The sorting
matters for the cache: an entry restored from the engine's log has its keys in canonical
(sorted) order, so a live entry must be sent in that same order or a restart would change
bytes already sent.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

from pifold_agent.providers.base import TextDelta, ThinkingDelta, ToolCallDelta
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, TextBlock, ThinkingBlock, ToolCallBlock, Usage

CALL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What every provider accepts as a tool call id."""


def normalise_call_id(call_id: str) -> str:
    """A call id every provider accepts, the same for the same input.

    An id already valid is kept. Otherwise disallowed characters become ``_``; an id that is
    then empty or longer than 64 characters becomes a prefix plus a hash of the original, so
    two different long ids never collide.
    """
    if CALL_ID_PATTERN.match(call_id):
        return call_id
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", call_id)
    if cleaned and len(cleaned) <= 64:
        return cleaned
    digest = hashlib.sha256(call_id.encode()).hexdigest()[:16]
    return f"{cleaned[:47]}_{digest}" if cleaned else f"call_{digest}"


def sorted_json(value: JsonValue) -> JsonValue:
    """The same JSON value with every object's keys in sorted order."""
    if isinstance(value, dict):
        return {key: sorted_json(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_json(item) for item in value]
    return value


def arguments_text(arguments: JsonValue) -> str:
    """Tool arguments as the JSON text OpenAI's APIs take (a string stays as it was)."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(sorted_json(arguments), ensure_ascii=False, separators=(",", ":"))


def parse_arguments(text: str) -> JsonValue:
    """Streamed argument text as JSON: an empty text is ``{}``, unparseable text stays text."""
    if not text.strip():
        return {}
    try:
        value: JsonValue = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value


@dataclass
class _Pending:
    kind: Literal["text", "thinking", "tool_call"]
    parts: list[str] = field(default_factory=list)
    signature: str | None = None
    call_id: str = ""
    name: str = ""
    final_arguments: str | None = None


class BlockAssembler:
    """The blocks of one assistant message as they stream in."""

    def __init__(self) -> None:
        self._blocks: list[_Pending] = []
        self._by_key: dict[Hashable, int] = {}

    def _open(self, key: Hashable, pending: _Pending) -> int:
        if key in self._by_key:
            return self._by_key[key]
        self._blocks.append(pending)
        self._by_key[key] = len(self._blocks) - 1
        return self._by_key[key]

    def has(self, key: Hashable) -> bool:
        """Whether a block was opened under ``key``."""
        return key in self._by_key

    def text(self, key: Hashable, text: str) -> TextDelta:
        """Add text to the text block under ``key`` (opened on first use)."""
        index = self._open(key, _Pending("text"))
        self._blocks[index].parts.append(text)
        return TextDelta(index, text)

    def thinking(self, key: Hashable, text: str) -> ThinkingDelta:
        """Add readable reasoning to the thinking block under ``key``."""
        index = self._open(key, _Pending("thinking"))
        self._blocks[index].parts.append(text)
        return ThinkingDelta(index, text)

    def open_thinking(self, key: Hashable) -> None:
        """Open a thinking block before any of its text arrives (to keep its position)."""
        self._open(key, _Pending("thinking"))

    def thinking_text(self, key: Hashable) -> str:
        """The reasoning text received so far under ``key``."""
        return "".join(self._blocks[self._by_key[key]].parts) if key in self._by_key else ""

    def sign(self, key: Hashable, signature: str, text: str | None = None) -> None:
        """Set the opaque signature of a thinking block, and its text when given whole."""
        index = self._open(key, _Pending("thinking"))
        block = self._blocks[index]
        block.signature = (block.signature or "") + signature
        if text is not None and not block.parts:
            block.parts.append(text)

    def resign(self, key: Hashable, signature: str) -> None:
        """Replace the signature of the thinking block under ``key``."""
        self._blocks[self._by_key[key]].signature = signature

    def open_tool_call(self, key: Hashable, call_id: str, name: str) -> None:
        """Open a tool call block; later pieces may fill in an id or name sent late."""
        index = self._open(key, _Pending("tool_call", call_id=call_id, name=name))
        block = self._blocks[index]
        block.call_id = block.call_id or call_id
        block.name = block.name or name

    def arguments(self, key: Hashable, partial_json: str) -> ToolCallDelta:
        """Add a piece of a tool call's argument text."""
        index = self._open(key, _Pending("tool_call"))
        block = self._blocks[index]
        block.parts.append(partial_json)
        return ToolCallDelta(index, block.call_id, block.name, partial_json)

    def final_arguments(self, key: Hashable, text: str) -> None:
        """The complete argument text, when the provider sends it at the end."""
        index = self._open(key, _Pending("tool_call"))
        self._blocks[index].final_arguments = text

    @property
    def tool_calls(self) -> int:
        """How many tool call blocks the message holds."""
        return sum(1 for block in self._blocks if block.kind == "tool_call")

    def blocks(self) -> tuple[Block, ...]:
        """The message's blocks in order, complete."""
        result: list[Block] = []
        for position, block in enumerate(self._blocks):
            text = "".join(block.parts)
            if block.kind == "text":
                result.append(TextBlock(text))
            elif block.kind == "thinking":
                result.append(ThinkingBlock(text, block.signature or None))
            else:
                arguments = block.final_arguments if block.final_arguments is not None else text
                # Some compatible servers send no id: the result still needs one to answer.
                call_id = block.call_id or f"call_{position}"
                result.append(ToolCallBlock(call_id, block.name, parse_arguments(arguments)))
        return tuple(result)


def disjoint_usage(prompt_tokens: int | None, output_tokens: int | None, details: Any) -> Usage:
    """OpenAI-style usage (a prompt total that includes its cached part, with the cached and
    written tokens in ``details``) as the engine's disjoint buckets: input excludes both."""
    cached = getattr(details, "cached_tokens", None) or 0
    written = getattr(details, "cache_write_tokens", None) or 0
    return Usage(
        input_tokens=max(0, (prompt_tokens or 0) - cached - written),
        output_tokens=output_tokens or 0,
        cache_read_tokens=cached,
        cache_write_tokens=written,
    )
