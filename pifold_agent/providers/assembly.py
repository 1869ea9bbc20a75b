"""Building one assistant message from streamed pieces, shared by every adapter.

Each provider streams blocks under its own keys (Anthropic's block index, OpenAI's item id
and content index, a Chat Completions tool call's index). :class:`BlockAssembler` gives each
block its position in the message, turns every piece into the matching stream event, and
produces the complete blocks at the end, tool call arguments parsed.

Every piece comes through the reply's :class:`~pifold_agent.providers.reply_door.ReplyDoor`:
a piece that is not text is left out, a piece for a block of another kind (an event out of
order) is left out, and the finished blocks are ones the engine admits whatever was sent:
text repaired, each call with a sound id unique in the message and a name every API takes,
its arguments parsed or kept as text (:mod:`pifold_agent.providers.arguments`). Streamed
pieces are repaired one by one for the events, a high surrogate at a piece's end held back
until the next piece, so a character split across two pieces arrives whole.

It also holds the two wire rules every adapter needs when it sends a message back: call ids
normalised for any provider, and tool arguments serialised with sorted keys. The sorting
matters for the cache: an entry restored from the engine's log has its keys in canonical
(sorted) order, so a live entry must be sent in that same order or a restart would change
bytes already sent.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Literal

from pifold_agent.providers.arguments import parse_arguments, read_arguments
from pifold_agent.providers.base import TextDelta, ThinkingDelta, ToolCallDelta
from pifold_agent.providers.call_ids import CALL_ID_PATTERN, normalise_call_id
from pifold_agent.providers.reply_door import NAMELESS_TOOL, ReplyDoor
from pifold_core.admission import replace_lone_surrogates
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, TextBlock, ThinkingBlock, ToolCallBlock

BlockKind = Literal["text", "thinking", "tool_call"]


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


@dataclass
class _Pending:
    kind: BlockKind
    parts: list[str] = field(default_factory=list)
    held: str = ""
    """A high surrogate that ended the last piece, waiting for its low half."""
    signature: str | None = None
    call_id: str = ""
    name: str = ""
    final_arguments: str | None = None

    def piece(self, text: str) -> str:
        """Add ``text``; return what can be shown of it now (repaired, a split pair held)."""
        self.parts.append(text)
        shown = self.held + text
        self.held = ""
        if shown and "\ud800" <= shown[-1] <= "\udbff":
            shown, self.held = shown[:-1], shown[-1]
        return replace_lone_surrogates(shown)


class BlockAssembler:
    """The blocks of one assistant message as they stream in."""

    def __init__(self, door: ReplyDoor | None = None) -> None:
        self.door = door if door is not None else ReplyDoor()
        """Where the reply's fields are checked and its warnings noted."""
        self._blocks: list[_Pending] = []
        self._by_key: dict[Hashable, int] = {}

    def _open(self, key: Hashable, kind: BlockKind) -> _Pending | None:
        """The block under ``key``, opened as ``kind`` on first use; ``None`` (with a
        warning) when it was opened as another kind."""
        index = self._by_key.get(key)
        if index is None:
            self._blocks.append(_Pending(kind))
            index = self._by_key[key] = len(self._blocks) - 1
        block = self._blocks[index]
        if block.kind != kind:
            self.door.warn(
                f"a {kind.replace('_', ' ')} piece came for block {index}, which is "
                f"{block.kind.replace('_', ' ')}: left out"
            )
            return None
        return block

    def _index(self, key: Hashable) -> int:
        return self._by_key[key]

    def has(self, key: Hashable) -> bool:
        """Whether a block was opened under ``key``."""
        return key in self._by_key

    def text(self, key: Hashable, text: object) -> TextDelta | None:
        """Add text to the text block under ``key`` (opened on first use)."""
        piece = self.door.text(text, "a text piece") if not isinstance(text, str) else text
        # An empty piece opens nothing (a server's first chunk often carries "").
        block = self._open(key, "text") if piece else None
        if block is None or piece is None:
            return None
        return TextDelta(self._index(key), block.piece(piece))

    def thinking(self, key: Hashable, text: object) -> ThinkingDelta | None:
        """Add readable reasoning to the thinking block under ``key``."""
        piece = self.door.text(text, "a reasoning piece") if not isinstance(text, str) else text
        # An empty piece opens nothing (a server's first chunk often carries "").
        block = self._open(key, "thinking") if piece else None
        if block is None or piece is None:
            return None
        return ThinkingDelta(self._index(key), block.piece(piece))

    def open_thinking(self, key: Hashable) -> None:
        """Open a thinking block before any of its text arrives (to keep its position)."""
        self._open(key, "thinking")

    def thinking_text(self, key: Hashable) -> str:
        """The reasoning text received so far under ``key``."""
        if key not in self._by_key:
            return ""
        return "".join(self._blocks[self._by_key[key]].parts)

    def sign(self, key: Hashable, signature: object, text: str | None = None) -> None:
        """Add to the opaque signature of a thinking block, and set its text when given whole."""
        piece = self.door.text(signature, "a reasoning signature")
        block = self._open(key, "thinking") if piece is not None else None
        if block is None or piece is None:
            return
        block.signature = (block.signature or "") + piece
        if text is not None and not block.parts:
            block.parts.append(text)

    def resign(self, key: Hashable, signature: str) -> None:
        """Replace the signature of the thinking block under ``key``."""
        block = self._open(key, "thinking")
        if block is not None:
            block.signature = signature

    def open_tool_call(self, key: Hashable, call_id: object, name: object) -> None:
        """Open a tool call block; later pieces may fill in an id or name sent late."""
        block = self._open(key, "tool_call")
        if block is None:
            return
        block.call_id = block.call_id or self.door.identifier(call_id, "a tool call's id")
        block.name = block.name or self.door.tool_name(name, "a tool call's name")

    def arguments(self, key: Hashable, partial_json: object) -> ToolCallDelta | None:
        """Add a piece of a tool call's argument text."""
        piece = self.door.text(partial_json, "a piece of tool call arguments")
        block = self._open(key, "tool_call") if piece is not None else None
        if block is None or piece is None:
            return None
        return ToolCallDelta(self._index(key), block.call_id, block.name, block.piece(piece))

    def final_arguments(self, key: Hashable, text: object) -> None:
        """The complete argument text, when the provider sends it at the end."""
        whole = self.door.text(text, "a tool call's complete arguments")
        block = self._open(key, "tool_call") if whole is not None else None
        if block is not None:
            block.final_arguments = whole

    @property
    def tool_calls(self) -> int:
        """How many tool call blocks the message holds."""
        return sum(1 for block in self._blocks if block.kind == "tool_call")

    def blocks(self) -> tuple[Block, ...]:
        """The message's blocks in order, complete and admissible (see the module docstring)."""
        result: list[Block] = []
        call_ids: set[str] = set()
        for position, block in enumerate(self._blocks):
            text = "".join(block.parts) + block.held
            if block.kind == "text":
                result.append(TextBlock(self.door.repaired(text, "the reply's text")))
            elif block.kind == "thinking":
                reasoning = self.door.repaired(text, "the reply's reasoning")
                signature = block.signature or None
                result.append(ThinkingBlock(reasoning, signature))
            else:
                result.append(self._call(block, position, text, call_ids))
        return tuple(result)

    def _call(self, block: _Pending, position: int, text: str, taken: set[str]) -> ToolCallBlock:
        # Some compatible servers send no id: the result still needs one to answer.
        call_id = block.call_id or f"call_{position}"
        if call_id in taken:
            original, suffix = call_id, 2
            while call_id in taken:
                call_id, suffix = f"{original}-{suffix}", suffix + 1
            self.door.warn(f"two tool calls had the id {original}: the second is {call_id}")
        taken.add(call_id)
        name = block.name
        if not name:
            name = NAMELESS_TOOL
            self.door.warn(f"tool call {call_id} came without a name: recorded as {name}")
        arguments_source = block.final_arguments if block.final_arguments is not None else text
        arguments, problem = read_arguments(arguments_source)
        if problem is not None:
            self.door.warn(
                f"the arguments of tool call {call_id} ({name}) are kept as text, since "
                f"{problem}: the call is answered with an error"
            )
        return ToolCallBlock(call_id, name, arguments)


__all__ = [
    "CALL_ID_PATTERN",
    "BlockAssembler",
    "arguments_text",
    "normalise_call_id",
    "parse_arguments",
    "sorted_json",
]
