"""The provider's usage, checked at the door: a figure is a plausible token count or unknown.

A figure the provider sent is taken when it is a whole number from 0 to
:data:`MAX_TOKEN_COUNT` (a float with no fraction, ``1200.0``, is that whole number). Anything
else (negative, fractional, ``NaN``, infinite, past the bound, text, ``true``, a list) is
recorded as **unknown** (``None``, :mod:`pifold_core.usage`) with a warning naming the field
and the value. A figure the provider left out is unknown too, never zero; only the cache
figures, which a provider without a cache does not report, read as 0 when absent. A cached
part larger than the prompt total it belongs to makes the prompt's figures unknown: they
cannot all be right.

OpenAI's shape (``prompt_tokens``/``input_tokens`` including the cached part, the cached and
written parts in a details object) is made disjoint: input excludes both. Anthropic's shape
is disjoint already, and each event overwrites only the figures it reports (Pi's rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pifold_agent.providers.reply_door import ReplyDoor, finite_whole, members, shown
from pifold_core.usage import Usage

MAX_TOKEN_COUNT: Final = 100_000_000
"""The largest figure taken as a count: ten times the largest context window offered today.
A larger one would tell the engine its window is full a thousand times over."""


def token_count(door: ReplyDoor, value: object, where: str) -> int | None:
    """A plausible token count, or ``None`` (unknown) with a warning naming what it was."""
    whole = finite_whole(value)
    if whole is not None and 0 <= whole <= MAX_TOKEN_COUNT:
        return whole
    door.warn(
        f"the provider's usage {where} was {shown(value)}, which is not a token count "
        f"(a whole number from 0 to {MAX_TOKEN_COUNT:,}): recorded as unknown"
    )
    return None


def openai_usage(door: ReplyDoor, reported: object, names: tuple[str, str, str]) -> Usage:
    """OpenAI-style usage as disjoint figures.

    ``names`` are the reply's keys for the prompt total, the output and the details object
    (Chat: ``prompt_tokens``, ``completion_tokens``, ``prompt_tokens_details``; Responses:
    ``input_tokens``, ``output_tokens``, ``input_tokens_details``).
    """
    if not isinstance(reported, Mapping):
        door.warn(f"the provider's usage was {shown(reported)}, not an object: recorded as unknown")
        return Usage(None, None, None, None)
    prompt_name, output_name, details_name = names
    prompt = _required(door, reported, prompt_name)
    output = _required(door, reported, output_name)
    details = members(reported.get(details_name))
    cached = _cache_figure(door, details, "cached_tokens", f"{details_name}.cached_tokens")
    written = _cache_figure(
        door, details, "cache_write_tokens", f"{details_name}.cache_write_tokens"
    )
    if prompt is None or cached is None or written is None:
        return Usage(None, output, None, None)
    if cached + written > prompt:
        door.warn(
            f"the provider's usage counts {cached + written:,} cached tokens in a prompt of "
            f"{prompt:,}: the prompt's figures are recorded as unknown"
        )
        return Usage(None, output, None, None)
    return Usage(prompt - cached - written, output, cached, written)


ANTHROPIC_NAMES: Final = (
    ("input_tokens", "input_tokens"),
    ("output_tokens", "output_tokens"),
    ("cache_read_input_tokens", "cache_read_tokens"),
    ("cache_creation_input_tokens", "cache_write_tokens"),
)
"""Anthropic's usage keys and the figure each one sets."""

ANTHROPIC_START: Final = Usage(None, None, 0, 0)
"""Before any event: input and output not known yet, no cache figures (a server without a
cache never reports them)."""


def anthropic_usage(door: ReplyDoor, reported: object, previous: Usage) -> Usage:
    """``previous`` with each figure the event reports overwritten (``null`` or absent keeps
    the previous figure; an implausible one makes it unknown)."""
    if reported is None:
        return previous
    if not isinstance(reported, Mapping):
        door.warn(f"the provider's usage was {shown(reported)}, not an object: ignored")
        return previous
    figures: dict[str, int | None] = {}
    for key, figure in ANTHROPIC_NAMES:
        value = reported.get(key)
        if value is not None:
            figures[figure] = token_count(door, value, key)
    return Usage(
        input_tokens=figures.get("input_tokens", previous.input_tokens),
        output_tokens=figures.get("output_tokens", previous.output_tokens),
        cache_read_tokens=figures.get("cache_read_tokens", previous.cache_read_tokens),
        cache_write_tokens=figures.get("cache_write_tokens", previous.cache_write_tokens),
    )


def _required(door: ReplyDoor, reported: Mapping[str, Any], name: str) -> int | None:
    value = reported.get(name)
    if value is None:
        door.warn(f"the provider's usage has no {name}: recorded as unknown")
        return None
    return token_count(door, value, name)


def _cache_figure(door: ReplyDoor, details: Mapping[str, Any], name: str, where: str) -> int | None:
    value = details.get(name)
    return 0 if value is None else token_count(door, value, where)


__all__ = [
    "ANTHROPIC_START",
    "MAX_TOKEN_COUNT",
    "anthropic_usage",
    "openai_usage",
    "token_count",
]
