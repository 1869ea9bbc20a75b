"""When Pi's native compaction fires, and how it estimates tokens (pi-host §4.1, §4.2, §4.6).

Pi compacts when the context passes the window minus ``reserveTokens``; ``keepRecentTokens``
plays no part in the trigger, it only places the cut. The reserve also sets both summaries'
output budgets. Pi's token estimate is characters divided by four, rounded up, per message,
with a flat 4,800 characters for each image; it is deliberately generous.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pifold_core.entries import Entry, ImageBlock, TextBlock, ThinkingBlock, ToolCallBlock, Usage

RESERVE_TOKENS = 16_384
"""Pi's ``reserveTokens`` default: headroom kept below the window."""

KEEP_RECENT_TOKENS = 20_000
"""Pi's ``keepRecentTokens`` default: estimated tokens of recent history kept verbatim."""

IMAGE_CHARACTERS = 4_800
"""What Pi's estimate charges for one image (about 1,200 tokens)."""

CHARACTERS_PER_TOKEN = 4
"""Pi's estimate: one token per four characters."""


class CompactionSettingsError(ValueError):
    """A compaction setting is out of range; the message names it."""


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """Pi's ``compaction`` settings block."""

    enabled: bool = True
    """Whether compaction fires on its own at the threshold (``/compact`` works regardless)."""
    reserve_tokens: int = RESERVE_TOKENS
    """Headroom below the context window; also sets the summaries' output budgets."""
    keep_recent_tokens: int = KEEP_RECENT_TOKENS
    """Estimated tokens of the newest history kept verbatim after a compaction."""

    def __post_init__(self) -> None:
        for name in ("reserve_tokens", "keep_recent_tokens"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise CompactionSettingsError(f"{name} must be a positive integer, got {value!r}")

    @property
    def history_summary_budget(self) -> int:
        """Output budget of a history summary: 0.8 of the reserve (13,107 by default)."""
        return int(0.8 * self.reserve_tokens)

    @property
    def turn_prefix_summary_budget(self) -> int:
        """Output budget of a split turn's prefix summary: half the reserve (8,192)."""
        return int(0.5 * self.reserve_tokens)

    def threshold(self, context_window: int) -> int:
        """The context size compaction must stay at or under: the window minus the reserve."""
        return context_window - self.reserve_tokens

    def should_compact(self, context_tokens: int, context_window: int) -> bool:
        """Pi's trigger: enabled, and the context is over the window minus the reserve."""
        return self.enabled and context_tokens > self.threshold(context_window)


def usage_context_tokens(usage: Usage) -> int | None:
    """The context one response stands for: its whole prompt plus its own output, which is
    input to the next request (Pi's ``calculateContextTokens``); unknown (``None``) when the
    provider's figures were."""
    return usage.total_tokens


def measured_context(entry: Entry) -> int | None:
    """The context an assistant entry's usage measured, when it carries a known one."""
    if entry.kind != "assistant" or entry.usage is None:
        return None
    return usage_context_tokens(entry.usage)


def estimate_tokens(entry: Entry) -> int:
    """Pi's per-message estimate: characters / 4, rounded up.

    Text and reasoning count; a tool call counts its name and the JSON of its arguments; an
    image counts :data:`IMAGE_CHARACTERS`.
    """
    characters = 0
    for block in entry.content:
        if isinstance(block, TextBlock | ThinkingBlock):
            characters += len(block.text)
        elif isinstance(block, ToolCallBlock):
            characters += len(block.name) + len(
                json.dumps(block.arguments, ensure_ascii=False, separators=(",", ":"))
            )
        elif isinstance(block, ImageBlock):
            characters += IMAGE_CHARACTERS
    return math.ceil(characters / CHARACTERS_PER_TOKEN)


def estimate_context_tokens(entries: Sequence[Entry], summary_tokens: int = 0) -> int:
    """The context a window holds, Pi's way: the usage of the last successful assistant
    response, plus the estimate of everything after it; the estimate of everything when no
    response carries usage. A usage whose figures are unknown is no measurement: an earlier
    one is used. ``summary_tokens`` is added when the window opens with a compaction summary
    that no usage has measured yet."""
    for position in range(len(entries) - 1, -1, -1):
        entry = entries[position]
        stop_reason = entry.extra.get("stop_reason")
        measured = measured_context(entry)
        if measured is not None and stop_reason not in ("error", "aborted"):
            after = sum(estimate_tokens(later) for later in entries[position + 1 :])
            return measured + after
    return summary_tokens + sum(estimate_tokens(entry) for entry in entries)


__all__ = [
    "CHARACTERS_PER_TOKEN",
    "IMAGE_CHARACTERS",
    "KEEP_RECENT_TOKENS",
    "RESERVE_TOKENS",
    "CompactionSettings",
    "CompactionSettingsError",
    "estimate_context_tokens",
    "estimate_tokens",
    "measured_context",
    "usage_context_tokens",
]
