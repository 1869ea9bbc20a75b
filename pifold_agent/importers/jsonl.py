"""A forgiving JSON Lines reader for session files written by real agents.

Real files are not always clean: a crash can leave half a line, two writers can glue two
objects onto one line, and fixtures sometimes carry ``//`` comment lines. Each physical line
is decoded with :meth:`json.JSONDecoder.raw_decode` in a loop so glued objects are split;
anything that still does not parse is skipped and counted instead of aborting the import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pifold_core.admission import replace_lone_surrogates

_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class JsonRecord:
    """One JSON object read from a line."""

    line_number: int
    """1-based physical line the object came from."""
    value: dict[str, Any]
    """The decoded object."""


@dataclass(frozen=True)
class JsonLines:
    """Every object a JSON Lines text holds, plus how many lines had to be skipped."""

    records: list[JsonRecord]
    skipped_lines: int


def read_json_lines(text: str) -> JsonLines:
    """Decode ``text`` line by line; never raises on malformed content."""
    records: list[JsonRecord] = []
    skipped_lines = 0
    # Split on "\n" only: str.splitlines() would also break on U+2028 and friends, which JSON
    # allows raw inside strings.
    for line_number, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        objects, clean = decode_glued_objects(stripped)
        records.extend(JsonRecord(line_number, value) for value in objects)
        if not clean:
            skipped_lines += 1
    return JsonLines(records, skipped_lines)


def repair_strings(value: Any) -> Any:
    """``value`` (freshly decoded, changed in place) with no lone surrogate left in any string.

    A JSON ``\\ud83d`` escape decodes to a lone surrogate: what a JavaScript host writes when
    its string slicing cut a 4-byte character in half. It has no UTF-8 form, so the engine
    refuses it; a trace reader repairs it the way broken bytes are (U+FFFD) and keeps the rest
    of the record. Walked with an explicit stack: decoded JSON can nest deep.
    """
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, member in list(node.items()):
                fixed_key = replace_lone_surrogates(key)
                if fixed_key is not key:
                    del node[key]
                if isinstance(member, str):
                    node[fixed_key] = replace_lone_surrogates(member)
                else:
                    node[fixed_key] = member
                    stack.append(member)
        elif isinstance(node, list):
            for position, member in enumerate(node):
                if isinstance(member, str):
                    node[position] = replace_lone_surrogates(member)
                else:
                    stack.append(member)
    return value


def decode_glued_objects(line: str) -> tuple[list[dict[str, Any]], bool]:
    """Split one line into the JSON objects it holds.

    Returns the objects decoded before the first problem and whether the whole line was
    clean. A line that holds a non-object value (a bare number, a list) is not a record of any
    format we read, so it counts as unclean too.
    """
    objects: list[dict[str, Any]] = []
    position = 0
    length = len(line)
    while position < length:
        try:
            value, end = _DECODER.raw_decode(line, position)
        except (json.JSONDecodeError, RecursionError):
            # Nested past the parser's recursion limit: as unreadable as broken JSON.
            return objects, False
        if not isinstance(value, dict):
            return objects, False
        objects.append(repair_strings(value))
        position = end
        while position < length and line[position].isspace():
            position += 1
    return objects, True
