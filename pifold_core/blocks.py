"""The content blocks of an entry: text, thinking, tool calls and images (DESIGN §2).

Blocks are immutable and check their own strings when they are made (see
:mod:`pifold_core.admission`): a surrogate pair split into two code points is combined into
its character, and a lone surrogate, a non-string field, or tool-call arguments JSON cannot
carry (a non-finite number, a non-JSON value, nesting past the limit) raise
:class:`EntryError` naming the block and field. So every block that exists round-trips
through the UTF-8 JSON of the log exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from pifold_core.admission import AdmissionError, admit, admit_text
from pifold_core.canonical import JsonValue


class EntryError(ValueError):
    """An entry or block record is malformed; the message names the field."""


def _admit_strings(block: object, kind: str, names: tuple[str, ...]) -> None:
    """Check the named string fields of a block being made; combine split pairs in place."""
    for name in names:
        value = getattr(block, name)
        if value is None and name == "signature":
            continue
        where = f"{kind} block field {name!r}"
        if not isinstance(value, str):
            raise EntryError(f"{where} must be a string, got {type(value).__name__}")
        try:
            repaired = admit_text(value, where)
        except AdmissionError as error:
            raise EntryError(str(error)) from None
        if repaired is not value:
            # The block is being built: this is its first and only value.
            object.__setattr__(block, name, repaired)


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Plain text."""

    text: str
    """The text itself."""

    def __post_init__(self) -> None:
        _admit_strings(self, "text", ("text",))

    def to_record(self) -> dict[str, JsonValue]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ThinkingBlock:
    """Model reasoning, kept because providers bill it when it is sent back."""

    text: str
    """Readable reasoning, possibly empty when the provider only returned an opaque form."""
    signature: str | None = None
    """Opaque provider data (a signature or encrypted reasoning) that must be resent as is."""

    def __post_init__(self) -> None:
        _admit_strings(self, "thinking", ("text", "signature"))

    def to_record(self) -> dict[str, JsonValue]:
        record: dict[str, JsonValue] = {"type": "thinking", "text": self.text}
        if self.signature is not None:
            record["signature"] = self.signature
        return record


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    """One tool call made by the assistant."""

    id: str
    """The call id that the matching tool result carries."""
    name: str
    """The tool's name."""
    arguments: JsonValue
    """The arguments: normally an object; a string when the provider sent unparseable text.
    Keys keep the provider's order (they are sent and logged that way)."""

    def __post_init__(self) -> None:
        _admit_strings(self, "tool_call", ("id", "name"))
        try:
            arguments = admit(self.arguments, "tool_call block field 'arguments'")
        except AdmissionError as error:
            raise EntryError(str(error)) from None
        if arguments is not self.arguments:
            object.__setattr__(self, "arguments", arguments)

    def to_record(self) -> dict[str, JsonValue]:
        return {"type": "tool_call", "id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class ImageBlock:
    """An inline image, base64 encoded."""

    media_type: str
    """MIME type, for example ``image/png``."""
    data: str
    """Base64 payload."""

    def __post_init__(self) -> None:
        _admit_strings(self, "image", ("media_type", "data"))

    def to_record(self) -> dict[str, JsonValue]:
        return {"type": "image", "media_type": self.media_type, "data": self.data}


Block: TypeAlias = TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock


def block_from_record(record: Any) -> Block:
    """Rebuild one content block from its record, naming what is wrong when it is malformed."""
    if not isinstance(record, Mapping):
        raise EntryError("content block must be a JSON object")
    kind = record.get("type")
    if kind == "text":
        return TextBlock(_str_field(record, "text"))
    if kind == "thinking":
        signature = record.get("signature")
        if signature is not None and not isinstance(signature, str):
            raise EntryError("thinking block field 'signature' must be a string")
        return ThinkingBlock(_str_field(record, "text"), signature)
    if kind == "tool_call":
        if "arguments" not in record:
            raise EntryError("tool_call block is missing 'arguments'")
        return ToolCallBlock(
            _str_field(record, "id"), _str_field(record, "name"), record["arguments"]
        )
    if kind == "image":
        return ImageBlock(_str_field(record, "media_type"), _str_field(record, "data"))
    raise EntryError(f"unknown content block type {kind!r}")


def _str_field(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise EntryError(f"field {name!r} must be a string, got {type(value).__name__}")
    return value


__all__ = [
    "Block",
    "EntryError",
    "ImageBlock",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallBlock",
    "block_from_record",
]
