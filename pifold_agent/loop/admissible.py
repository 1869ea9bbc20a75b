"""Whatever a tool returns, made fit to record: the one door every tool result goes through.

The engine refuses what cannot round-trip through UTF-8 JSON (:mod:`pifold_core.admission`)
and it is right to: a refused entry is how a bad value is kept out of the log. A tool's
output, though, comes from the world: a file name that is not UTF-8 reaches Python as a
lone surrogate (``os.scandir`` decodes names with ``surrogateescape``), a command prints a
NUL, a tool's details hold a ``set`` or a ``NaN``. Refusing those would lose the batch, so
the batch passes every outcome through :func:`admissible` before recording it:

* text (the result, and every string inside the details, keys included): a lone surrogate
  becomes U+FFFD, the replacement character a reader of broken bytes expects, and so does a
  NUL, which several providers refuse inside JSON strings;
* details: plain JSON only; a non-finite number becomes ``null``, any other value its
  ``repr``, nesting past :data:`DETAILS_MAX_DEPTH` a short note;
* an outcome that is not a :class:`ToolOutcome` at all, or images that are not image
  blocks, become an error result naming what the tool returned.

Doing it here, once, fixes the class: no tool has to remember it, and a new tool cannot
forget it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pifold_agent.tools.protocol import ToolOutcome
from pifold_core.admission import MAX_DEPTH, replace_lone_surrogates
from pifold_core.canonical import JsonValue
from pifold_core.entries import ImageBlock

DETAILS_MAX_DEPTH = MAX_DEPTH - 8
"""Deepest nesting kept in a result's details (the entry wraps them a few levels down)."""

REPLACEMENT = "\ufffd"


def admissible_text(text: str) -> str:
    """``text`` with lone surrogates and NUL characters replaced by U+FFFD."""
    repaired = replace_lone_surrogates(text)
    return repaired.replace("\x00", REPLACEMENT) if "\x00" in repaired else repaired


def admissible_details(value: object, depth: int = 0) -> JsonValue:
    """``value`` as plain JSON that the engine admits (see the module docstring)."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return admissible_text(value)
    if isinstance(value, Mapping | list | tuple) and depth >= DETAILS_MAX_DEPTH:
        return f"(nested deeper than {DETAILS_MAX_DEPTH} levels; left out)"
    if isinstance(value, Mapping):
        return {
            admissible_text(key if isinstance(key, str) else repr(key)): admissible_details(
                item, depth + 1
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [admissible_details(item, depth + 1) for item in value]
    return admissible_text(repr(value))


def admissible(outcome: object, tool_name: str) -> ToolOutcome:
    """An outcome the engine and the session file accept, carrying what ``outcome`` said."""
    if not isinstance(outcome, ToolOutcome):
        return ToolOutcome(
            f"error: tool {tool_name} returned {type(outcome).__name__}, not a ToolOutcome",
            is_error=True,
        )
    if not all(isinstance(image, ImageBlock) for image in outcome.images):
        return ToolOutcome(
            f"error: tool {tool_name} returned images that are not image blocks", is_error=True
        )
    text = outcome.text if isinstance(outcome.text, str) else repr(outcome.text)
    details = admissible_details(outcome.details) if outcome.details else {}
    return ToolOutcome(
        admissible_text(text),
        is_error=bool(outcome.is_error),
        images=tuple(outcome.images),
        details=details if isinstance(details, dict) else {"value": details},
    )


__all__ = [
    "DETAILS_MAX_DEPTH",
    "admissible",
    "admissible_details",
    "admissible_text",
]
