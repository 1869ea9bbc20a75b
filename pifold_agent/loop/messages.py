"""Provider-neutral messages as engine entries: ids, timestamps and the recorded stop reason.

Every message of a run becomes one :class:`pifold_core.entries.Entry`. Ids are eight hex
digits (Pi's session ids), drawn at random and checked against every id already issued, so
they are unique in the session and can never look like a path. An assistant message that
did not complete (aborted by the user, or a provider error) is still an entry, kept in the
session file for the record, but it is marked so that it never reaches the engine or a
provider again (:func:`in_context`).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Container, Iterable
from dataclasses import replace

from pifold_agent.providers.base import StreamDone
from pifold_agent.tools.protocol import ToolOutcome
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, Entry, TextBlock, ThinkingBlock, ToolCallBlock, Usage

EXCLUDED_STOP_REASONS: frozenset[str] = frozenset({"aborted", "error"})
"""Assistant messages that stopped this way are kept for the record, never replayed."""


def now_ms() -> int:
    """Wall-clock Unix milliseconds (entry timestamps)."""
    return time.time_ns() // 1_000_000


def in_context(entry: Entry) -> bool:
    """Whether the entry belongs in the model's context (not an aborted or failed reply)."""
    return entry.extra.get("stop_reason") not in EXCLUDED_STOP_REASONS


class EntryFactory:
    """Builds the entries of one session with fresh ids and timestamps."""

    def __init__(
        self, taken: Container[str] | None = None, clock: Callable[[], int] = now_ms
    ) -> None:
        self._taken = taken if taken is not None else frozenset()
        self._issued: set[str] = set()
        self._clock = clock

    def new_id(self) -> str:
        """Eight hex digits not used before in this session."""
        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self._issued and candidate not in self._taken:
                self._issued.add(candidate)
                return candidate

    def user(self, text: str) -> Entry:
        """A user message."""
        return Entry(self.new_id(), "user", self._clock(), (TextBlock(text),))

    def note(self, text: str, extra: dict[str, JsonValue]) -> Entry:
        """A host note: text the model reads as user content (a resurfaced memory note)."""
        return Entry(self.new_id(), "note", self._clock(), (TextBlock(text),), extra=extra)

    def assistant(
        self, done: StreamDone, provider: str, model: str, used_call_ids: Container[str]
    ) -> Entry:
        """The assistant message a completed (or failed) stream produced.

        A call id the session already used (some compatible servers number calls from zero
        on every response) is renamed, because a result must answer exactly one call.
        """
        extra: dict[str, JsonValue] = {"stop_reason": done.stop_reason, "provider": provider}
        if done.extra:
            extra["provider_data"] = dict(done.extra)
        if done.error is not None:
            extra["error"] = done.error.message
            extra["error_class"] = done.error.kind.value
        return Entry(
            self.new_id(),
            "assistant",
            self._clock(),
            _unique_calls(done.content, used_call_ids),
            usage=_usable(done.usage),
            model=done.model or model,
            extra=extra,
        )

    def partial_assistant(
        self, blocks: Iterable[Block], provider: str, model: str, usage: Usage | None
    ) -> Entry:
        """What had streamed when the user aborted: kept in the session file only."""
        extra: dict[str, JsonValue] = {"stop_reason": "aborted", "provider": provider}
        return Entry(
            self.new_id(),
            "assistant",
            self._clock(),
            tuple(blocks),
            usage=_usable(usage),
            model=model,
            extra=extra,
        )

    def tool_result(self, call: ToolCallBlock, outcome: ToolOutcome) -> Entry:
        """The result of one call, as the model will see it."""
        content: tuple[Block, ...] = (TextBlock(outcome.text), *outcome.images)
        extra: dict[str, JsonValue] = {"details": dict(outcome.details)} if outcome.details else {}
        return Entry(
            self.new_id(),
            "tool_result",
            self._clock(),
            content,
            call_id=call.id,
            tool_name=call.name,
            is_error=outcome.is_error,
            extra=extra,
        )


def streamed_blocks(texts: dict[int, list[str]], thinking: dict[int, list[str]]) -> list[Block]:
    """The text and thinking blocks assembled from deltas, in block order."""
    blocks: list[tuple[int, Block]] = [
        (index, TextBlock("".join(parts))) for index, parts in texts.items()
    ]
    blocks += [(index, ThinkingBlock("".join(parts))) for index, parts in thinking.items()]
    return [block for _, block in sorted(blocks, key=lambda pair: pair[0])]


def _usable(usage: Usage | None) -> Usage | None:
    """``None`` for a usage that reports nothing (all zero); a usage with unknown figures is
    kept, so the record says the provider's figures could not be used."""
    if usage is None or all(figure == 0 for figure in usage.figures):
        return None
    return usage


def _unique_calls(content: tuple[Block, ...], used: Container[str]) -> tuple[Block, ...]:
    seen: set[str] = set()
    blocks: list[Block] = []
    for block in content:
        if isinstance(block, ToolCallBlock):
            call_id = block.id
            suffix = 1
            while call_id in used or call_id in seen or not call_id:
                call_id = f"{block.id or 'call'}-{suffix}"
                suffix += 1
            seen.add(call_id)
            block = replace(block, id=call_id) if call_id != block.id else block
        blocks.append(block)
    return tuple(blocks)


__all__ = [
    "EXCLUDED_STOP_REASONS",
    "EntryFactory",
    "in_context",
    "now_ms",
    "streamed_blocks",
]
