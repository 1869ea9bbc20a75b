"""The door every provider reply comes through: each field is checked before it is used.

The SDKs parse a streamed event into typed objects without validating it, so a field holds
whatever the server sent: a number where text belongs, ``null``, a list, a string of a
megabyte. The adapters therefore read an event as plain JSON (:func:`plain`) and take each
field through a :class:`ReplyDoor`, which returns a value of the right kind or says that
there is none, and notes a **warning** for everything it had to set aside or repair. The
warnings reach the user as events while the reply streams and stay with the recorded message
(``extra.provider_data.reply_warnings``).

What the door decides, field by field:

* text: a string; lone surrogates (no UTF-8 form) become U+FFFD; anything else is left out;
* ids (call ids, item ids): printable text of at most :data:`MAX_ID_CHARS` characters; any
  other value is replaced by an id derived from it (the same value gives the same id);
* tool names: what every API accepts (``[A-Za-z0-9_-]``, at most 64 characters): another
  name is made into one the same way call ids are (no real tool is called that anyway, so
  the call gets an "unknown tool" result), and a missing name reads :data:`NAMELESS_TOOL`;
* indexes: whole numbers from 0 to :data:`MAX_INDEX`;
* token counts: see :mod:`pifold_agent.providers.reply_usage`;
* the model name: printable text of at most :data:`MAX_ID_CHARS` characters, else the model
  the request was sent to.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

import pydantic

from pifold_agent.providers.call_ids import normalise_call_id
from pifold_core.admission import AdmissionError, admit_text, replace_lone_surrogates
from pifold_core.canonical import JsonValue

MAX_ID_CHARS: Final = 256
"""The longest id (or model name) kept as sent; real ones are under 100 characters."""

MAX_INDEX: Final = 10_000
"""The highest block or content index taken; a reply holds a handful."""

MAX_WARNINGS: Final = 20
"""Warnings kept for one reply; past it they are counted, not listed."""

TOOL_NAME_PATTERN: Final = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""A tool name every provider API accepts when it is sent back."""

NAMELESS_TOOL: Final = "tool_without_name"
"""The name recorded for a tool call that came without one (no tool has it)."""

SHOWN_CHARS: Final = 60
"""How much of an offending value a warning quotes."""


def plain(value: object) -> JsonValue:
    """An SDK object as the JSON the server sent (only the fields it set, extras included),
    or the value; nested objects alike, walked without recursion.

    Not ``model_dump``: pydantic-core cannot write every value the server can send (a key
    with a lone surrogate raises ``UnicodeEncodeError``), and this only has to undo the
    SDK's construction.
    """
    return copied_by_level(value, _unwrapped)


def copied_by_level(value: Any, shallow: Callable[[Any], JsonValue]) -> JsonValue:
    """``value`` as JSON made one level at a time by ``shallow`` (a new object or array of
    the same members, a scalar as it should read), its members in turn, without recursion:
    no nesting the provider sends can exhaust the stack. ``shallow`` must return a new
    container, since its members are replaced in place."""
    result = shallow(value)
    stack = [result] if isinstance(result, dict | list) else []
    while stack:
        container = stack.pop()
        keys = list(container) if isinstance(container, dict) else range(len(container))
        for key in keys:
            child = shallow(container[key])
            container[key] = child
            if isinstance(child, dict | list):
                stack.append(child)
    return result


def _unwrapped(value: object) -> JsonValue:
    """One level of :func:`plain`: a model as a new dict of what was set, a container copied."""
    if isinstance(value, pydantic.BaseModel):
        fields = type(value).model_fields
        members: dict[str, JsonValue] = {}
        for name in value.model_fields_set:
            info = fields.get(name)
            members[info.alias if info is not None and info.alias else name] = getattr(
                value, name, None
            )
        members.update(value.__pydantic_extra__ or {})
        return members
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list | tuple):
        return list(value)
    return value


def members(value: object) -> Mapping[str, Any]:
    """``value`` as a JSON object; an empty one when it is not an object."""
    return value if isinstance(value, Mapping) else {}


def kind_of(value: Mapping[str, Any]) -> str | None:
    """An event's (or item's, or block's) ``type`` when it is text; ``None`` otherwise."""
    kind = value.get("type")
    return kind if isinstance(kind, str) else None


def shown(value: object) -> str:
    """A short, printable rendering of an offending value for a warning."""
    text = replace_lone_surrogates(repr(value)) if isinstance(value, str) else _repr(value)
    return (
        text if len(text) <= SHOWN_CHARS else f"{text[: SHOWN_CHARS - 3]}... ({len(text):,} chars)"
    )


def without_lone_surrogates(value: JsonValue) -> JsonValue:
    """A copy of a JSON value with every lone surrogate (in strings and keys) replaced by
    U+FFFD, made without recursion: what is sent back must have a UTF-8 form."""
    return copied_by_level(value, _repaired_shallow)


def _repaired_shallow(value: JsonValue) -> JsonValue:
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, dict):
        return {replace_lone_surrogates(str(key)): member for key, member in value.items()}
    if isinstance(value, list):
        return list(value)
    return value


def _repr(value: object) -> str:
    try:
        return repr(value)
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply to show"


class ReplyDoor:
    """The checks of one reply, and the warnings they raised."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        """Every warning of the reply, in order (at most :data:`MAX_WARNINGS`)."""
        self.dropped = 0
        """Warnings past :data:`MAX_WARNINGS`, counted only."""
        self._taken = 0

    def warn(self, message: str) -> None:
        """Note that something in the reply was set aside or repaired."""
        if message in self.warnings:
            return
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        else:
            self.dropped += 1

    def take(self) -> list[str]:
        """The warnings noted since the last call."""
        fresh = self.warnings[self._taken :]
        self._taken = len(self.warnings)
        return fresh

    def record(self) -> dict[str, JsonValue]:
        """What the recorded message keeps of the warnings (nothing when there were none)."""
        if not self.warnings:
            return {}
        kept: list[JsonValue] = list(self.warnings)
        if self.dropped:
            kept.append(f"... and {self.dropped:,} more")
        return {"reply_warnings": kept}

    # -- fields ----------------------------------------------------------------------------

    def text(self, value: object, where: str) -> str | None:
        """Text, repaired; ``None`` (left out, with a warning unless absent) otherwise."""
        if value is None:
            return None
        if not isinstance(value, str):
            self.warn(f"{where} was {shown(value)}, not text: left out")
            return None
        return self.repaired(value, where)

    def repaired(self, text: str, where: str) -> str:
        """``text`` with any lone surrogate replaced by U+FFFD (split pairs are combined)."""
        try:
            return admit_text(text, where)
        except AdmissionError:
            self.warn(f"{where} held a lone surrogate (no UTF-8 form): replaced by U+FFFD")
            return replace_lone_surrogates(text)

    def identifier(self, value: object, where: str) -> str:
        """An id as sent when it is sound; ``""`` when absent; else one derived from it."""
        if value is None or value == "":
            return ""
        if isinstance(value, str) and len(value) <= MAX_ID_CHARS and value.isprintable():
            return value
        derived = f"id_{hashlib.sha256(_repr(value).encode('utf-8', 'replace')).hexdigest()[:16]}"
        self.warn(f"{where} was {shown(value)}: replaced by {derived}")
        return derived

    def tool_name(self, value: object, where: str) -> str:
        """A tool name every API accepts when it is sent back (see the module docstring)."""
        if value is None or value == "":
            return ""
        if isinstance(value, str) and TOOL_NAME_PATTERN.match(value):
            return value
        name = normalise_call_id(value) if isinstance(value, str) else NAMELESS_TOOL
        self.warn(f"{where} was {shown(value)}: recorded as {name} (no tool has that name)")
        return name

    def index(self, value: object, where: str) -> int | None:
        """A block or content index, or ``None`` (with a warning unless absent)."""
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INDEX:
            return value
        self.warn(f"{where} was {shown(value)}, not an index from 0 to {MAX_INDEX:,}: ignored")
        return None

    def model(self, value: object, current: str) -> str:
        """The model the reply names, or ``current`` when it names none or an odd one."""
        if value is None or value == "":
            return current
        if isinstance(value, str) and len(value) <= MAX_ID_CHARS and value.isprintable():
            return value
        self.warn(f"the reply's model was {shown(value)}: recorded as {current}")
        return current


def finite_whole(value: object) -> int | None:
    """``value`` as a whole number when it is one (an int, or a float with no fraction)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


__all__ = [
    "MAX_ID_CHARS",
    "MAX_INDEX",
    "MAX_WARNINGS",
    "NAMELESS_TOOL",
    "TOOL_NAME_PATTERN",
    "ReplyDoor",
    "copied_by_level",
    "finite_whole",
    "kind_of",
    "members",
    "plain",
    "shown",
    "without_lone_surrogates",
]
