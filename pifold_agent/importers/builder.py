"""Shared assembly of imported entries: stable ids, timestamps, dropped turns and orphans.

Every importer walks its own format and hands finished pieces to a :class:`TraceBuilder`,
which owns the rules that must hold for all formats:

* ids are unique, stable across runs and never look like paths: the trace's own id is
  preferred (sanitised), a synthesised ``e000042`` is the fallback, and collisions get a
  deterministic ``-2``, ``-3`` suffix;
* timestamps become integer Unix milliseconds; an entry without one borrows its neighbour's,
  and a trace without any gets synthesised increasing ones;
* an assistant turn with neither content nor usage was never a real model request, so it is
  dropped (and noted);
* a tool result whose call never appeared is kept, and noted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pifold_agent.importers.trace import ImportedTrace
from pifold_core.canonical import JsonValue
from pifold_core.entries import Block, Entry, EntryError, EntryKind, ToolCallBlock, Usage

_UNSAFE_ID_CHARACTERS = re.compile(r"[^A-Za-z0-9._:@+=-]+")
_MAXIMUM_ID_LENGTH = 128
_SYNTHETIC_STEP_MS = 1000
"""Spacing of synthesised timestamps, so replays show a plausible, increasing clock."""
_MILLISECONDS_THRESHOLD = 100_000_000_000
"""Numbers above this are already milliseconds (1e11 s would be the year 5138)."""


def to_unix_ms(value: Any) -> int | None:
    """Convert an ISO-8601 string, epoch milliseconds or epoch seconds to Unix ms."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        if abs(value) >= _MILLISECONDS_THRESHOLD:
            return int(value)
        return round(value * 1000)
    if isinstance(value, str) and value.strip():
        text = value.strip()
        try:
            return to_unix_ms(float(text))
        except ValueError:
            pass
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
        if moment.tzinfo is None:
            # Hosts write UTC; a naive stamp read as local time would shift with the machine.
            moment = moment.replace(tzinfo=UTC)
        return round(moment.timestamp() * 1000)
    return None


def sanitize_id(raw: Any) -> str | None:
    """Turn a host id into a safe entry id, or ``None`` when nothing usable is left."""
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        return None
    text = _UNSAFE_ID_CHARACTERS.sub("_", str(raw)).strip("_")[:_MAXIMUM_ID_LENGTH]
    if not text or set(text) <= {"."}:
        return None
    return text


@dataclass
class _PendingEntry:
    kind: EntryKind
    content: tuple[Block, ...]
    preferred_id: str | None
    timestamp_ms: int | None
    call_id: str | None
    tool_name: str | None
    is_error: bool
    usage: Usage | None
    model: str | None
    extra: dict[str, JsonValue]


@dataclass
class TraceBuilder:
    """Collects the entries of one trace and applies the cross-format rules."""

    format: str
    notes: list[str] = field(default_factory=list)
    _pending: list[_PendingEntry] = field(default_factory=list)
    _dropped_assistant_ids: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        """Record a human-readable warning about the trace."""
        self.notes.append(text)

    def add(
        self,
        kind: EntryKind,
        content: list[Block] | tuple[Block, ...],
        *,
        preferred_id: Any = None,
        timestamp: Any = None,
        call_id: str | None = None,
        tool_name: str | None = None,
        is_error: bool = False,
        usage: Usage | None = None,
        model: str | None = None,
        extra: Mapping[str, JsonValue] | None = None,
    ) -> bool:
        """Queue one entry; returns ``False`` when it was dropped as an empty assistant turn."""
        if kind == "assistant" and not content and (usage is None or _is_zero(usage)):
            label = sanitize_id(preferred_id) or f"#{len(self._pending)}"
            self._dropped_assistant_ids.append(label)
            return False
        if kind == "tool_result":
            call_id = call_id or "unknown-call"
            tool_name = tool_name if tool_name is not None else "unknown"
        self._pending.append(
            _PendingEntry(
                kind=kind,
                content=tuple(content),
                preferred_id=sanitize_id(preferred_id),
                timestamp_ms=to_unix_ms(timestamp),
                call_id=call_id,
                tool_name=tool_name,
                is_error=is_error,
                usage=usage,
                model=model,
                extra=dict(extra or {}),
            )
        )
        return True

    def finish(self, skipped_lines: int) -> ImportedTrace:
        """Assign ids and timestamps, check call/result linkage and build the trace."""
        timestamps = _fill_timestamps([pending.timestamp_ms for pending in self._pending])
        used_ids: set[str] = set()
        known_call_ids: set[str] = set()
        orphan_call_ids: list[str] = []
        entries: list[Entry] = []
        # Some hosts reuse a call id in a later turn; the engine needs ids unique per session,
        # so a reused id is renamed (with its results) deterministically and noted.
        current_call_id: dict[str, str] = {}
        renamed_call_ids: list[str] = []
        unkept: list[str] = []
        for index, pending in enumerate(self._pending):
            entry_id = _unique_id(pending.preferred_id or f"e{index:06d}", used_ids)
            content = pending.content
            if pending.kind == "assistant":
                content, renamed = _rename_reused_calls(content, known_call_ids, current_call_id)
                renamed_call_ids.extend(renamed)
            result_call_id = pending.call_id
            if pending.kind == "tool_result" and result_call_id is not None:
                result_call_id = current_call_id.get(result_call_id, result_call_id)
            try:
                entry = Entry(
                    id=entry_id,
                    kind=pending.kind,
                    timestamp_ms=timestamps[index],
                    content=content,
                    call_id=result_call_id if pending.kind == "tool_result" else None,
                    tool_name=pending.tool_name if pending.kind == "tool_result" else None,
                    is_error=pending.is_error,
                    usage=pending.usage,
                    model=pending.model,
                    extra=pending.extra,
                )
            except EntryError as error:
                # A record the engine could not keep exactly (a lone surrogate from a JSON
                # escape, two calls sharing an id): skipped and said, never the whole import.
                unkept.append(str(error))
                continue
            known_call_ids.update(call.id for call in entry.tool_calls)
            if entry.kind == "tool_result" and entry.call_id not in known_call_ids:
                orphan_call_ids.append(str(entry.call_id))
            entries.append(entry)
        if self._dropped_assistant_ids:
            self.note(
                f"dropped {len(self._dropped_assistant_ids)} assistant turn(s) with no content "
                f"and no usage (aborted or failed requests): "
                f"{', '.join(self._dropped_assistant_ids)}"
            )
        if unkept:
            self.note(f"skipped {len(unkept)} record(s) that cannot be kept exactly: {unkept[0]}")
        if renamed_call_ids:
            self.note(
                f"{len(renamed_call_ids)} reused tool call id(s) renamed with their results: "
                f"{', '.join(renamed_call_ids)}"
            )
        if orphan_call_ids:
            self.note(
                f"{len(orphan_call_ids)} tool result(s) answer a call that is not in the trace, "
                f"kept as is: orphan call ids {', '.join(orphan_call_ids)}"
            )
        return ImportedTrace(
            format=self.format, entries=entries, skipped_lines=skipped_lines, notes=self.notes
        )


def orphan_call_ids(trace: ImportedTrace) -> set[str]:
    """The call ids that the trace's notes list as orphans (for callers checking linkage)."""
    marker = "orphan call ids "
    found: set[str] = set()
    for note in trace.notes:
        if marker in note:
            found.update(part.strip() for part in note.split(marker, 1)[1].split(","))
    return found


def _rename_reused_calls(
    content: tuple[Block, ...], known: set[str], current: dict[str, str]
) -> tuple[tuple[Block, ...], list[str]]:
    """Give every call id already used earlier in the trace a fresh, deterministic suffix.

    ``current`` maps each original call id to the id its results must now carry.
    """
    renamed: list[str] = []
    blocks: list[Block] = []
    for block in content:
        if isinstance(block, ToolCallBlock):
            original, new_id, suffix = block.id, block.id, 2
            while new_id in known:
                new_id = f"{original}-{suffix}"
                suffix += 1
            current[original] = new_id
            if new_id != original:
                renamed.append(f"{original} -> {new_id}")
                block = ToolCallBlock(new_id, block.name, block.arguments)
        blocks.append(block)
    return tuple(blocks), renamed


def _is_zero(usage: Usage) -> bool:
    return usage.prompt_tokens == 0 and usage.output_tokens == 0


def _unique_id(candidate: str, used_ids: set[str]) -> str:
    unique = candidate
    suffix = 2
    while unique in used_ids:
        unique = f"{candidate}-{suffix}"
        suffix += 1
    used_ids.add(unique)
    return unique


def _fill_timestamps(raw: list[int | None]) -> list[int]:
    """Give every entry a timestamp: its own, else the previous one, else the next one.

    A trace with no timestamps at all gets ``0, 1000, 2000, ...`` so order stays visible and
    the result is the same on every run.
    """
    if all(value is None for value in raw):
        return [index * _SYNTHETIC_STEP_MS for index in range(len(raw))]
    filled: list[int | None] = list(raw)
    previous: int | None = None
    for index, value in enumerate(filled):
        if value is None:
            filled[index] = previous
        else:
            previous = value
    following: int | None = None
    for index in range(len(filled) - 1, -1, -1):
        value = filled[index]
        if value is None:
            filled[index] = following
        else:
            following = value
    return [value if value is not None else 0 for value in filled]


def non_negative_int(value: Any) -> int:
    """A token count from host JSON: an int >= 0, anything else counts as 0."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return 0


def optional_string(value: Any) -> str | None:
    """``value`` when it is a string, else ``None``."""
    return value if isinstance(value, str) else None


def parse_arguments(raw: Any) -> JsonValue:
    """Tool-call arguments: a JSON string becomes an object when it parses, else stays text."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
