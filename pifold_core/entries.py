"""The transcript model: entries, their content blocks, canonical bytes and digests (DESIGN §2).

An :class:`Entry` is one message exactly as the host appended it. Entries are immutable: the
transcript is append-only, so an entry's canonical bytes and digest are computed once and
cached on the object.

Two serialisations exist and must not be confused:

* the **record** (:meth:`Entry.to_record`) is everything the host appended, id, timestamp and
  usage included. Fold sources are made of records, so a fold restores the entry exactly.
* the **wire message** (:meth:`Entry.to_wire`) is what a provider sees: role, content and the
  call linkage, nothing else. Projection digests are taken over its wire bytes (keys in the
  order the host gave them, :func:`pifold_core.canonical.wire_bytes`), so the audit compares
  what is actually sent.

Every string and value is checked at the door (:mod:`pifold_core.admission`): a split
surrogate pair is combined into its character, and a lone surrogate, a non-finite number,
a non-JSON value or nesting past the limit is an :class:`EntryError` naming the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, cast

from pifold_core.admission import AdmissionError, admit, admit_text
from pifold_core.blocks import (
    Block,
    EntryError,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    block_from_record,
)
from pifold_core.canonical import (
    CANONICAL_FORMAT_VERSION,
    JsonValue,
    canonical_bytes,
    sha256_hex,
    wire_digest_of,
)
from pifold_core.usage import Usage

EntryKind = Literal["user", "assistant", "tool_result", "note"]
"""``note`` is host or engine text shown to the model as user-role content."""

ENTRY_KINDS: tuple[EntryKind, ...] = ("user", "assistant", "tool_result", "note")

RECORD_VERSION = 1
"""Version of the entry record layout, stored in every record."""


@dataclass(frozen=True, eq=False)
class Entry:
    """One transcript message as the host appended it."""

    id: str
    """Stable id, unique within the session. Never a path."""
    kind: EntryKind
    """``user``, ``assistant``, ``tool_result`` or ``note``."""
    timestamp_ms: int
    """When the host appended it, in Unix milliseconds."""
    content: tuple[Block, ...]
    """The content blocks in order."""
    call_id: str | None = None
    """For a tool result: the id of the call it answers."""
    tool_name: str | None = None
    """For a tool result: the tool that produced it."""
    is_error: bool = False
    """For a tool result: whether the tool reported an error."""
    usage: Usage | None = None
    """For an assistant entry: the provider's usage for the call that produced it."""
    model: str | None = None
    """For an assistant entry: the model that produced it, when known."""
    extra: Mapping[str, JsonValue] = field(default_factory=dict)
    """Host metadata kept for losslessness (never sent to a provider)."""

    def __post_init__(self) -> None:
        _admit_fields(self)
        _validate(self)

    # -- derived views -------------------------------------------------------------------

    @cached_property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        """The tool calls of an assistant entry, in order."""
        return tuple(block for block in self.content if isinstance(block, ToolCallBlock))

    @cached_property
    def text(self) -> str:
        """All readable text of the entry (text and thinking blocks), joined by newlines."""
        parts = [
            block.text for block in self.content if isinstance(block, TextBlock | ThinkingBlock)
        ]
        return "\n".join(part for part in parts if part)

    @cached_property
    def record_bytes(self) -> bytes:
        """Canonical bytes of the full record: what a fold source is made of."""
        return canonical_bytes(self.to_record())

    @cached_property
    def digest(self) -> str:
        """SHA-256 of :attr:`record_bytes`."""
        return sha256_hex(self.record_bytes)

    @cached_property
    def wire(self) -> dict[str, JsonValue]:
        """The provider-facing message (see :meth:`to_wire`)."""
        return self.to_wire()

    @cached_property
    def wire_digest(self) -> str:
        """SHA-256 of the wire bytes of the wire message: what a host sends (see
        :func:`pifold_core.canonical.wire_bytes`), tool-call arguments in the order given."""
        return wire_digest_of(self.wire)

    @cached_property
    def size_chars(self) -> int:
        """Characters of content this entry puts in a window (for size rules)."""
        return len(canonical_bytes([block.to_record() for block in self.content]))

    # -- serialisation -------------------------------------------------------------------

    def to_record(self) -> dict[str, JsonValue]:
        """Everything the host appended, as a JSON object."""
        record: dict[str, JsonValue] = {
            "v": RECORD_VERSION,
            "id": self.id,
            "kind": self.kind,
            "ts": self.timestamp_ms,
            "content": [block.to_record() for block in self.content],
        }
        if self.kind == "tool_result":
            record["call_id"] = self.call_id
            record["tool"] = self.tool_name
            record["error"] = self.is_error
        if self.usage is not None:
            record["usage"] = self.usage.to_record()
        if self.model is not None:
            record["model"] = self.model
        if self.extra:
            record["extra"] = dict(self.extra)
        return record

    def to_wire(self) -> dict[str, JsonValue]:
        """The message a provider receives: role, content and call linkage only."""
        content: list[JsonValue] = [block.to_record() for block in self.content]
        if self.kind == "tool_result":
            return {
                "role": "tool",
                "call_id": self.call_id,
                "name": self.tool_name,
                "is_error": self.is_error,
                "content": content,
            }
        role = "assistant" if self.kind == "assistant" else "user"
        return {"role": role, "content": content}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Entry:
        """Rebuild an entry from :meth:`to_record` output.

        Raises:
            EntryError: naming the field that is missing or of the wrong type.
        """
        if not isinstance(record, Mapping):
            raise EntryError("entry record must be a JSON object")
        version = record.get("v")
        if version != RECORD_VERSION:
            raise EntryError(f"entry record version {version!r} is not {RECORD_VERSION}")
        content = record.get("content")
        if not isinstance(content, list):
            raise EntryError("entry record field 'content' must be a list")
        # Never refused: an unreadable usage is unknown (see pifold_core.usage).
        usage = Usage.from_record(record["usage"]) if record.get("usage") is not None else None
        extra = record.get("extra", {})
        if not isinstance(extra, Mapping):
            raise EntryError("entry record field 'extra' must be an object")
        return cls(
            id=cast(str, record.get("id")),
            kind=cast(EntryKind, record.get("kind")),
            timestamp_ms=cast(int, record.get("ts")),
            content=tuple(block_from_record(item) for item in content),
            call_id=cast("str | None", record.get("call_id")),
            tool_name=cast("str | None", record.get("tool")),
            is_error=bool(record.get("error", False)),
            usage=usage,
            model=cast("str | None", record.get("model")),
            extra=dict(extra),
        )


def text_entry(
    entry_id: str, kind: EntryKind, text: str, timestamp_ms: int = 0, **fields: Any
) -> Entry:
    """Convenience constructor for an entry holding one text block."""
    return Entry(
        id=entry_id,
        kind=kind,
        timestamp_ms=timestamp_ms,
        content=(TextBlock(text),),
        **fields,
    )


def records_to_entries(records: Iterable[Mapping[str, Any]]) -> list[Entry]:
    """Rebuild a list of entries from records."""
    return [Entry.from_record(record) for record in records]


def looks_like_path(identifier: str) -> bool:
    """Whether an id names a path: a separator or a parent reference. Ids never do, so every
    verb that takes an id (peek, pin, reboundary, the tool) refuses these."""
    return "/" in identifier or "\\" in identifier or ".." in identifier


def _admit_fields(entry: Entry) -> None:
    """Check the entry's own strings and ``extra`` at the door (see
    :mod:`pifold_core.admission`; its blocks checked theirs when they were made).

    Split surrogate pairs are combined in place (the entry is being built, so this is its
    first and only value); anything that cannot round-trip through UTF-8 JSON is refused
    with an :class:`EntryError` naming the field.
    """
    name = entry.id if isinstance(entry.id, str) and entry.id.isprintable() else "?"
    try:
        for field_name in ("id", "call_id", "tool_name", "model"):
            value = getattr(entry, field_name)
            if isinstance(value, str):
                repaired = admit_text(value, f"field {field_name!r}")
                if repaired is not value:
                    object.__setattr__(entry, field_name, repaired)
        if isinstance(entry.extra, Mapping):
            extra = admit(dict(entry.extra), "field 'extra'")
            object.__setattr__(entry, "extra", extra)
    except AdmissionError as error:
        raise EntryError(f"entry {name}: {error}") from None


def _validate(entry: Entry) -> None:
    if not isinstance(entry.id, str) or not entry.id:
        raise EntryError("entry field 'id' must be a non-empty string")
    if "/" in entry.id or "\\" in entry.id or entry.id in {".", ".."}:
        raise EntryError(f"entry id {entry.id!r} looks like a path; ids never are")
    if entry.kind not in ENTRY_KINDS:
        raise EntryError(f"entry {entry.id}: kind {entry.kind!r} is not one of {ENTRY_KINDS}")
    if not isinstance(entry.timestamp_ms, int) or isinstance(entry.timestamp_ms, bool):
        raise EntryError(f"entry {entry.id}: field 'ts' must be an integer (ms)")
    if not isinstance(entry.content, tuple):
        raise EntryError(f"entry {entry.id}: content must be a tuple of blocks")
    for block in entry.content:
        if not isinstance(block, TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock):
            raise EntryError(f"entry {entry.id}: content holds a non-block {block!r}")
        if isinstance(block, ToolCallBlock) and entry.kind != "assistant":
            raise EntryError(f"entry {entry.id}: only assistant entries carry tool calls")
    if entry.kind == "tool_result":
        if not isinstance(entry.call_id, str) or not entry.call_id:
            raise EntryError(f"tool result {entry.id}: field 'call_id' must be a string")
        if not isinstance(entry.tool_name, str):
            raise EntryError(f"tool result {entry.id}: field 'tool' must be a string")
    elif entry.call_id is not None or entry.tool_name is not None:
        raise EntryError(f"entry {entry.id}: only tool results carry 'call_id'/'tool'")
    if entry.kind == "assistant":
        call_ids = [call.id for call in entry.tool_calls]
        if len(set(call_ids)) != len(call_ids):
            raise EntryError(f"assistant {entry.id}: duplicate tool call ids")
    elif entry.usage is not None:
        raise EntryError(f"entry {entry.id}: only assistant entries carry usage")
    if entry.usage is not None and not isinstance(entry.usage, Usage):
        raise EntryError(f"entry {entry.id}: field 'usage' must be a Usage")


__all__ = [
    "CANONICAL_FORMAT_VERSION",
    "ENTRY_KINDS",
    "Block",
    "Entry",
    "EntryError",
    "EntryKind",
    "ImageBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "Usage",
    "block_from_record",
    "records_to_entries",
    "text_entry",
]
