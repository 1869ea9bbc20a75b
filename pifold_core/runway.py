"""The commit policy's two cache-aware rules (issue 12): cold-cache commits and runway.

**Cold cache.** A request sent more than the provider's cache lifetime after the previous one
finds the cache expired, and a request whose host changed the head of its own prompt (its
system prompt or tools: an old Pi put the time to the second in it) finds nothing after that
head cached: either way the whole window is re-sent uncached whatever the engine does, so a
commit at that request costs no extra uncached input, and every later re-send is of the
smaller window. The host passes the request's time, the model's cache lifetime and a digest
of its prompt head (:meth:`pifold_core.engine.Engine.prepare_request`); the engine keeps the
previous request's time and head in the log, so a reopened session decides the same way.
A usage report that read nothing from the cache is *not* taken as a cold signal: the request
it describes has already been sent (and written the cache again), so it says nothing about
the next one.

A cold-cache commit lands *every* standing mark that can land, not only down to
``minTarget``: the marks are spans the mark layer already judged stale, the rewrite is free,
and what a mark keeps raw past this request is re-sent uncached at every later cold request.
``fold-immediate`` (every mark landed the moment it is laid) shows those spans folded from
the start, so this never shows less than it. :data:`COLD_COMMIT_SHARE` keeps a small window,
one whose re-sends cost little, from folding for nothing.

**Runway.** A threshold commit exists to buy room. When mass the engine cannot fold (the
host's own system prompt and tools, pinned entries, the fresh tail) keeps a commit from
landing well under ``maxTarget``, committing again and again a few requests apart rewrites the
cache for little room each time. So a threshold commit lands only when the occupancy expected
after it is at least :data:`RUNWAY_SHARE` of the band's width below ``maxTarget``; otherwise
nothing is committed, the :class:`Floor` says what blocks it, and overflow recovery stays the
safety net.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pifold_core.engine_errors import EngineError
from pifold_core.marks import Mark
from pifold_core.options import EngineOptions

RUNWAY_SHARE = 0.5
"""Share of the band's width (``maxTarget - minTarget``) a threshold commit must open below
``maxTarget`` to land: with the default 0.8/0.2 band at a 60k budget, 18k tokens."""

COLD_COMMIT_SHARE = 0.1
"""Share of the budget the expected occupancy must reach before a cold cache triggers a
commit. Chosen by ``benchmarks/sweep_cold_point.py`` (seven shared traces at 100k): 0.1 is
the highest point at which ``fold`` reads less uncached input than ``fold-immediate`` on
every trace, and it keeps as many planted values raw as any point below 0.4 (a window of
12k at a host reset in the mini-swe-agent trace is the one that needs it below 0.2); the
table is in the README."""


@dataclass(frozen=True, slots=True)
class Floor:
    """What keeps a threshold commit from buying runway, in provider tokens."""

    host_tokens: int
    """The host's system prompt and tools: occupancy the engine's estimate does not see."""
    pin_tokens: int
    """Pinned entries, which stay raw through every commit."""
    fresh_tokens: int
    """The fresh tail, never folded."""
    other_tokens: int
    """Everything else the commit left (fold placeholders, unfoldable raw entries)."""
    expected_after: int
    """Occupancy the commit would have left."""
    needed_after: int
    """Occupancy it had to reach to land (``maxTarget`` minus the runway)."""
    budget_that_works: int
    """The smallest budget (rounded up to 1,000) at which this floor leaves the runway."""

    def to_record(self) -> dict[str, int]:
        """The floor as the request record that it held back logs it (rebuilt on reopen)."""
        return {name: getattr(self, name) for name in FLOOR_FIELDS}

    @classmethod
    def from_record(cls, record: object) -> Floor:
        """The floor a request record logged; a malformed one is refused by name."""
        if not isinstance(record, dict) or set(record) != set(FLOOR_FIELDS):
            raise EngineError(f"a logged floor must name exactly {list(FLOOR_FIELDS)}")
        for name in FLOOR_FIELDS:
            value = record[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise EngineError(f"a logged floor's {name} must be a whole number, got {value!r}")
        return cls(**{name: int(record[name]) for name in FLOOR_FIELDS})

    def describe(self) -> str:
        """One line for status, the tool and the bar."""
        return (
            f"commit blocked by the floor: it would leave {self.expected_after:,} tokens, "
            f"above the {self.needed_after:,} that buys runway; host prompt "
            f"{self.host_tokens:,}, pins {self.pin_tokens:,}, fresh tail "
            f"{self.fresh_tokens:,}, folds and the rest {self.other_tokens:,}; a budget of "
            f"{self.budget_that_works:,} would work"
        )


FLOOR_FIELDS = (
    "host_tokens",
    "pin_tokens",
    "fresh_tokens",
    "other_tokens",
    "expected_after",
    "needed_after",
    "budget_that_works",
)
"""The fields of a :class:`Floor`, in its record's order."""


def runway_tokens(options: EngineOptions) -> int:
    """Room a threshold commit must open below ``maxTarget``."""
    band = options.thresholds.max_target - options.thresholds.min_target
    return int(RUNWAY_SHARE * band * options.budget)


def needed_after(options: EngineOptions) -> int:
    """The occupancy a threshold commit must reach to land."""
    return options.max_tokens - runway_tokens(options)


def buys_runway(options: EngineOptions, expected_after: int) -> bool:
    """Whether a commit leaving ``expected_after`` tokens opens the runway."""
    return expected_after <= needed_after(options)


def budget_that_works(options: EngineOptions, floor_tokens: int) -> int:
    """The smallest budget whose runway target sits at or above ``floor_tokens``."""
    thresholds = options.thresholds
    share = thresholds.max_target - RUNWAY_SHARE * (thresholds.max_target - thresholds.min_target)
    return int(math.ceil(floor_tokens / share / 1_000) * 1_000)


def make_floor(
    options: EngineOptions,
    expected_after: int,
    host_tokens: int,
    pin_tokens: int,
    fresh_tokens: int,
) -> Floor:
    """The floor report for a commit that would leave ``expected_after`` tokens."""
    fixed = host_tokens + pin_tokens + fresh_tokens
    return Floor(
        host_tokens=host_tokens,
        pin_tokens=pin_tokens,
        fresh_tokens=fresh_tokens,
        other_tokens=max(0, expected_after - fixed),
        expected_after=expected_after,
        needed_after=needed_after(options),
        budget_that_works=budget_that_works(options, expected_after),
    )


def check_request_clock(now_ms: int | None, cache_lifetime_s: int | None) -> None:
    """Refuse a request time or lifetime that is not a whole, sensible number."""
    for name, value in (("now_ms", now_ms), ("cache_lifetime_s", cache_lifetime_s)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            raise EngineError(f"{name} must be a whole number or None, got {value!r}")
    if now_ms is not None and now_ms < 0:
        raise EngineError(f"now_ms must not be negative, got {now_ms}")
    if cache_lifetime_s is not None and cache_lifetime_s <= 0:
        raise EngineError(f"cache_lifetime_s must be above 0 seconds, got {cache_lifetime_s}")


COLD_KEEP_SHARE = 0.05
"""Share of the budget a cold-cache commit never folds the window below: a mark whose
landing would leave less waits. A window of briefs alone is the restart from nothing the
bench counts as near zero (5 % of the budget, after the window reached the band)."""


def cold_commit_marks(
    marks: Iterable[Mark],
    fresh_start: int,
    held_raw: Callable[[int, int], bool],
    range_tokens: Callable[[int, int], int],
    occupancy: int,
    down_to: int,
    keep_at_least: int,
) -> list[str]:
    """The marks a cold-cache commit lands, in estimated tokens.

    Stalest first (the order a commit applies them), each mark that can land (it ends
    before the fresh tail and holds nothing kept raw) until ``occupancy`` is down to
    ``down_to``. A mark inside one already taken lands with it. A mark whose landing would
    leave less than ``keep_at_least`` is passed over: what it frees is counted as its whole
    span (``range_tokens``), its placeholder not, so the window it leaves is never smaller
    than counted.
    """
    chosen: list[str] = []
    covered_end = -1
    for mark in sorted(marks, key=lambda m: (m.start, -m.end, m.id)):
        if occupancy <= down_to:
            break
        if mark.end <= covered_end or mark.end > fresh_start or held_raw(mark.start, mark.end):
            continue
        freed = range_tokens(mark.start, mark.end)
        if occupancy - freed < keep_at_least:
            continue
        chosen.append(mark.id)
        occupancy -= freed
        covered_end = mark.end
    return chosen


HOST_HEAD_LIMIT = 128
"""Longest host head digest accepted (a SHA-256 in hex is 64 characters)."""


def check_host_head(host_head: str | None) -> None:
    """Refuse a host head that is not a short, printable, non-empty string."""
    if host_head is None:
        return
    if not isinstance(host_head, str) or not host_head:
        raise EngineError(f"host_head must be a non-empty string or None, got {host_head!r}")
    if len(host_head) > HOST_HEAD_LIMIT or not host_head.isprintable():
        raise EngineError(
            f"host_head must be at most {HOST_HEAD_LIMIT} printable characters, "
            f"got {host_head[:40]!r}{'...' if len(host_head) > 40 else ''}"
        )


def host_head_changed(previous: str | None, current: str | None) -> bool:
    """Whether the host's prompt head changed since the previous request.

    Unknown on either side: not changed (the engine never guesses a reset).
    """
    return previous is not None and current is not None and previous != current


def cache_is_cold(
    previous_ms: int | None, now_ms: int | None, cache_lifetime_s: int | None
) -> bool:
    """Whether a request at ``now_ms`` finds the cache expired since the previous one.

    Unknown times or lifetime: not cold (the engine never guesses an expiry).
    """
    if previous_ms is None or now_ms is None or cache_lifetime_s is None:
        return False
    return now_ms - previous_ms > cache_lifetime_s * 1_000


class RunwayBlocked(Exception):
    """Raised inside a threshold commit that would not buy runway; the engine restores its
    snapshot (nothing was logged) and keeps :attr:`floor` for status."""

    def __init__(self, floor: Floor) -> None:
        super().__init__(floor.describe())
        self.floor = floor
        """What blocked it."""


class LeavesTooLittle(Exception):
    """Raised inside a cold-cache commit that would leave the window under the keep
    (:data:`COLD_KEEP_SHARE`); the engine restores its snapshot (nothing was logged)."""

    def __init__(self, tokens_after: int) -> None:
        super().__init__(f"the commit would leave {tokens_after:,} estimated tokens")
        self.tokens_after = tokens_after
        """What it would have left."""


__all__ = [
    "COLD_COMMIT_SHARE",
    "COLD_KEEP_SHARE",
    "FLOOR_FIELDS",
    "HOST_HEAD_LIMIT",
    "RUNWAY_SHARE",
    "Floor",
    "LeavesTooLittle",
    "RunwayBlocked",
    "budget_that_works",
    "buys_runway",
    "cache_is_cold",
    "check_host_head",
    "check_request_clock",
    "cold_commit_marks",
    "host_head_changed",
    "make_floor",
    "needed_after",
    "runway_tokens",
]
