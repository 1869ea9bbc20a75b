"""What a JSON value must be to enter the engine (DESIGN §12: bad input changes nothing).

Everything an entry carries (text, tool-call arguments at any depth, ids, host metadata) is
logged, hashed and sent again after a restart, so it must survive the round trip through
UTF-8 JSON exactly. :func:`admit` checks a value once, at the door, without recursion:

* a string must have a UTF-8 form. A high surrogate followed by a low one, as two code
  points, is what a streaming decoder produces when a 4-byte character is split across two
  chunks; they are combined into the real character (the only change ever made). A lone
  surrogate has no meaning and is refused;
* numbers must be finite (canonical JSON has no ``NaN`` or ``Infinity``); ``bool``, ``int``,
  ``float``, ``None``, ``str``, lists, tuples and dicts with string keys are the only values;
* nesting is at most :data:`MAX_DEPTH` deep, checked with an explicit stack, so a hostile
  value is refused with an error instead of exhausting the interpreter's recursion limit.

Every refusal is an :class:`AdmissionError` naming the field and the place inside it.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from pifold_core.canonical import JsonValue

MAX_DEPTH: Final = 64
"""Deepest nesting of lists and objects an entry may hold."""

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class AdmissionError(ValueError):
    """A value cannot enter the engine; the message names where and why."""


def admit_text(text: str, where: str) -> str:
    """``text`` with split surrogate pairs combined; a lone surrogate is refused."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    # utf-16 with surrogatepass turns each code point back into its 16-bit units, so a
    # high/low pair written as two code points becomes one valid pair, decoded as one
    # character; anything left unpaired still fails the strict encode below.
    combined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    try:
        combined.encode("utf-8")
    except UnicodeEncodeError as error:
        lone = ord(combined[error.start])
        raise AdmissionError(
            f"{where} holds a lone surrogate U+{lone:04X} at character {error.start}; "
            "it has no UTF-8 form and could not be read back as sent"
        ) from None
    return combined


def replace_lone_surrogates(text: str) -> str:
    """``text`` with split pairs combined and every lone surrogate replaced by U+FFFD.

    For readers of other programs' files (a trace written by a JavaScript host whose string
    slicing cut a character in half): the same repair ``bytes.decode(errors="replace")`` makes
    for broken bytes, where the engine's own door refuses instead.
    """
    if text.isascii():
        return text
    try:
        return admit_text(text, "text")
    except AdmissionError:
        combined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return _LONE_SURROGATE.sub("\ufffd", combined)


def admit(value: JsonValue, where: str) -> JsonValue:
    """``value`` checked (and its split surrogate pairs combined) for entering the engine.

    Returns ``value`` itself when nothing needed combining, else a repaired copy.

    Raises:
        AdmissionError: naming the field and path of the first offending part.
    """
    needs_repair = False
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            needs_repair |= admit_text(item, path) is not item
        elif item is None or isinstance(item, bool | int):
            continue
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise AdmissionError(
                    f"{path} is the non-finite number {item!r}; JSON cannot represent it"
                )
        elif isinstance(item, list | tuple | dict):
            if depth >= MAX_DEPTH:
                raise AdmissionError(f"{path} nests deeper than {MAX_DEPTH} levels")
            if isinstance(item, dict):
                for key, member in item.items():
                    if not isinstance(key, str):
                        raise AdmissionError(f"{path} has a non-string key {key!r}")
                    needs_repair |= admit_text(key, f"{path} key {key!r}") is not key
                    stack.append((member, f"{path}.{key}", depth + 1))
            else:
                stack.extend(
                    (member, f"{path}[{index}]", depth + 1) for index, member in enumerate(item)
                )
        else:
            raise AdmissionError(f"{path} is a {type(item).__name__}, which is not JSON")
    return _repaired(value, where) if needs_repair else value


def _repaired(value: JsonValue, where: str) -> JsonValue:
    """A copy with every string combined; depth is already bounded by :func:`admit`."""
    if isinstance(value, str):
        return admit_text(value, where)
    if isinstance(value, dict):
        return {admit_text(key, where): _repaired(item, where) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_repaired(item, where) for item in value]
    return value


__all__ = ["MAX_DEPTH", "AdmissionError", "admit", "admit_text", "replace_lone_surrogates"]
