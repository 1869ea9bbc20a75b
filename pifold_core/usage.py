"""The provider's token accounting for one model call, where any figure may be unknown.

A figure is a whole number of tokens, or ``None``: **unknown**. Unknown is not zero. A provider
that left a figure out, or sent one no count can be (negative, fractional, not a number,
absurdly large, a cached part above its whole), gives no reading of it, and every reader of
a :class:`Usage` has to say what it does without one: the engine's meter takes no
measurement from a request whose prompt is unknown (:meth:`pifold_core.engine.Engine.report_usage`),
a cost total leaves the unknown part out. The provider adapters decide what is plausible
(``pifold_agent/providers/reply_usage.py``); this module only holds what they decided.

Records. A usage record is a JSON object of the four figures, ``null`` for an unknown one.
Earlier releases logged the provider's figures as they came (``1e+300``, ``-5``, ``12.5``),
which the readers then refused, so such a session could not be opened again. Reading is
therefore total: a record in any other shape is read as a wholly unknown usage that keeps
the record as it was written (:attr:`Usage.as_written`), so the entry's canonical bytes, its
digest, and every fold source holding it stay exactly what they were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pifold_core.canonical import JsonValue, parse_json

RECORD_NAMES = ("input", "output", "cache_read", "cache_write")
"""The keys of a usage record, in the order of :class:`Usage`'s figures."""


def is_figure(value: object) -> bool:
    """Whether ``value`` is what a known figure is: a whole number of tokens, at least 0."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True, slots=True)
class Usage:
    """The provider's token accounting for one model call (DESIGN §6); ``None`` is unknown."""

    input_tokens: int | None = 0
    """Uncached input tokens."""
    output_tokens: int | None = 0
    """Generated tokens, reasoning included."""
    cache_read_tokens: int | None = 0
    """Input tokens served from the provider's prefix cache."""
    cache_write_tokens: int | None = 0
    """Input tokens written to the provider's prefix cache."""
    as_written: str | None = None
    """For a record an earlier release wrote in a shape this one does not read (the provider's
    figures as they came): that record's JSON text, keys in their order, written back
    unchanged by :meth:`to_record`. Every figure is then unknown."""

    def __post_init__(self) -> None:
        for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            value = getattr(self, name)
            if value is not None and not is_figure(value):
                raise ValueError(
                    f"usage {name} must be a whole number of tokens (at least 0) or None "
                    f"for unknown, got {value!r}"
                )
        if self.as_written is not None and self.figures != (None, None, None, None):
            raise ValueError("a usage kept as written has no known figure")

    @property
    def figures(self) -> tuple[int | None, int | None, int | None, int | None]:
        """The four figures in record order: input, output, cache read, cache write."""
        return (
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
        )

    @property
    def prompt_tokens(self) -> int | None:
        """The whole prompt the provider counted: input + cache read + cache write; unknown
        when any of the three is."""
        if self.input_tokens is None or self.cache_read_tokens is None:
            return None
        if self.cache_write_tokens is None:
            return None
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def total_tokens(self) -> int | None:
        """Prompt and output together; unknown when either is."""
        prompt = self.prompt_tokens
        if prompt is None or self.output_tokens is None:
            return None
        return prompt + self.output_tokens

    @property
    def known(self) -> bool:
        """Whether at least one figure is known."""
        return any(figure is not None for figure in self.figures)

    def to_record(self) -> JsonValue:
        """The usage record: the four figures (``null`` when unknown), or the record exactly as
        an earlier release wrote it."""
        if self.as_written is not None:
            return parse_json(self.as_written)
        return dict(zip(RECORD_NAMES, self.figures, strict=True))

    @classmethod
    def from_record(cls, record: JsonValue) -> Usage:
        """The usage an entry record holds; never refuses (see the module docstring).

        A missing figure reads as 0, as every earlier release wrote all four; ``null`` is
        unknown. A record in any other shape is kept whole, as written, all unknown.
        """
        if isinstance(record, Mapping) and set(record) <= set(RECORD_NAMES):
            values = [record.get(name, 0) for name in RECORD_NAMES]
            if all(value is None or is_figure(value) for value in values):
                return cls(*values)
        return _kept(record)

    @classmethod
    def from_named(cls, record: Mapping[str, Any], names: tuple[str, str, str, str]) -> Usage:
        """The usage a record in another file's spelling holds (``names`` are its keys for
        the four figures; other keys are not read); never refuses.

        The same rules as :meth:`from_record`; a record this release would not have written
        keeps its four values under the engine's names, which is what the engine's log holds
        for the same entry.
        """
        values = [record.get(name, 0) for name in names]
        if all(value is None or is_figure(value) for value in values):
            return cls(*values)
        named = zip(RECORD_NAMES, names, strict=True)
        return _kept({ours: record[theirs] for ours, theirs in named if theirs in record})


UNKNOWN_USAGE = Usage(None, None, None, None)
"""A usage of which nothing is known."""


def _kept(record: JsonValue) -> Usage:
    """A wholly unknown usage keeping ``record`` as written (when JSON can write it at all:
    a non-finite number never reached the engine's log, so nothing has to match it)."""
    try:
        # Key order kept (not canonical): the log writes records in the order they hold.
        text = json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError):
        return UNKNOWN_USAGE
    return Usage(None, None, None, None, as_written=text)


__all__ = ["RECORD_NAMES", "UNKNOWN_USAGE", "Usage", "is_figure"]
