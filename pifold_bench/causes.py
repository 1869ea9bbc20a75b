"""Why input went uncached: the split of every request's uncached tokens by cause.

A request's uncached input (fresh input plus cache writes: everything the provider did not
replay) runs from where the cache read stopped to the end of the prompt. Set against the
previous request of the same arm, each uncached token has one of four causes:

* **appended**: beyond everything the previous request sent, so new material, paid once;
* **expired**: the previous request sent the same bytes at the same place, yet the cache no
  longer held them: a pause longer than the cache's lifetime, or, on a warm breakpoint cache,
  an append too long for the lookback to reach the last entry. After such a pause, bytes the
  arm rewrote count here too: they replace bytes that would have been re-sent regardless;
* **reset**: the host changed the head of its prompt (a recorded host prefix reset), so the
  bytes the previous request sent are re-sent behind a new head;
* **rewrite**: the arm itself changed bytes the previous request sent (a commit, a verb, a
  compaction or a clearing pass) while the cache was warm. On a breakpoint cache a rewrite
  also costs unchanged bytes before it when no entry within the lookback survives it; those
  count here too, since the rewrite is why they were missed. Side calls (summarisations)
  exist only because of a rewrite, so their whole prompt counts here too.

The split is made in tokens on the request's own prefix sums, so the four figures of a
request add up to its uncached input exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from pifold_agent.pricing.prefix_cache import Bill, PromptPart

CAUSES = ("appended", "expired", "reset", "rewrite")
"""The causes, in report order."""


@dataclass(frozen=True, slots=True)
class UncachedSplit:
    """Uncached input tokens by cause."""

    appended: int = 0
    """New material beyond the previous request."""
    expired: int = 0
    """Bytes the previous request sent, re-sent because the cache lost them."""
    reset: int = 0
    """Bytes re-sent behind a host prefix reset."""
    rewrite: int = 0
    """Bytes re-sent because the arm rewrote them (side calls included)."""

    @property
    def total(self) -> int:
        return self.appended + self.expired + self.reset + self.rewrite

    def __add__(self, other: UncachedSplit) -> UncachedSplit:
        return UncachedSplit(
            self.appended + other.appended,
            self.expired + other.expired,
            self.reset + other.reset,
            self.rewrite + other.rewrite,
        )

    def as_dict(self) -> dict[str, int]:
        return {cause: getattr(self, cause) for cause in CAUSES}


def _overlap(start: int, end: int, low: int, high: int) -> int:
    return max(0, min(end, high) - max(start, low))


def split_request(
    previous: tuple[PromptPart, ...],
    current: tuple[PromptPart, ...],
    bill: Bill,
    host_reset: bool,
    warm: bool = True,
) -> UncachedSplit:
    """The causes of ``bill``'s uncached input, against the previous request's parts.

    ``host_reset`` says the host changed its prompt's head at this request; then what the
    previous request sent is re-sent because of the reset, whatever else changed behind it.
    ``warm`` says the previous request was sent within the cache's lifetime.
    """
    shared = 0
    for before, now in zip(previous, current, strict=False):
        if before.digest != now.digest:
            break
        shared += 1
    current_sums = [0, *accumulate(part.tokens for part in current)]
    previous_total = sum(part.tokens for part in previous)
    total = current_sums[-1]
    shared_tokens = current_sums[shared]
    # The provider counts the whole prompt; only the uncached tail needs a cause.
    uncached_start = total - (bill.fresh_input + bill.cache_write)
    expired = _overlap(uncached_start, total, 0, shared_tokens)
    # Bytes past the shared prefix but within what the previous request sent were changed.
    changed = _overlap(uncached_start, total, shared_tokens, max(shared_tokens, previous_total))
    appended = _overlap(uncached_start, total, max(shared_tokens, previous_total), total)
    if host_reset:
        return UncachedSplit(appended=appended, expired=expired, reset=changed)
    if not warm:
        # After a pause past the lifetime, every byte the previous request sent was lost,
        # changed or not: what the arm rewrote there would have been re-sent regardless, so
        # the rewrite cost nothing (that is why a cold-cache commit lands there).
        return UncachedSplit(appended=appended, expired=expired + changed)
    if shared < len(previous):
        # A warm cache missed unchanged bytes only because the rewrite took its entries.
        return UncachedSplit(appended=appended, rewrite=changed + expired)
    return UncachedSplit(appended=appended, expired=expired, rewrite=changed)


def side_call_split(bill: Bill) -> UncachedSplit:
    """A side call is caused by the rewrite it prepares: its uncached input is rewrite."""
    return UncachedSplit(rewrite=bill.fresh_input + bill.cache_write)
