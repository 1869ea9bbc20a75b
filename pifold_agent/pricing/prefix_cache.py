"""A simulated provider: a positional prefix cache per family, and the bill of each request.

The benchmark bills every arm with it, and the demo bills the session it plays (and native
compaction beside it) with the same rules, so the two never price a request differently.

A provider prefix cache replays the longest byte-identical prefix it still holds, so what a
request costs depends on *where* it first differs from what was sent before, not on how
much differs. The simulation works at message granularity: a request is an ordered list of
:class:`PromptPart` (a digest and a token count), and two requests share a prefix exactly as
far as their digests agree. A difference inside a message is therefore counted from the
message's start (the few framing tokens before it are the only thing this loses).

Two families (rules and prices in the dated data file):

* **automatic** (OpenAI): every prompt of at least ``minimum_tokens`` is cached whole; the
  next request reads the longest prefix it shares with any live entry, counted in whole
  ``step_tokens``. Writes cost nothing extra and are not reported.
* **breakpoint** (Anthropic): an entry exists only where a request put a breakpoint. A
  breakpoint hits an entry at its own position or at one of the ``lookback_blocks`` message
  boundaries before it; tokens from the hit to the last breakpoint are written (billed at
  the write rate), tokens after the last breakpoint are fresh input.

Lifetimes are measured on the trace's own clock: an entry unused for longer than the
family's lifetime is gone, and every hit refreshes it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol

from pifold_agent.pricing.prices import TOKENS_PER_PRICE_UNIT, CacheRules, ModelPrices


@dataclass(frozen=True, slots=True)
class PromptPart:
    """One message of a prompt, as the cache sees it."""

    digest: str
    """Identity of the message's bytes: equal digests mean equal bytes."""
    tokens: int
    """Tokens the provider counts for it."""


@dataclass(frozen=True, slots=True)
class BilledRequest:
    """One model call as the simulated provider receives it."""

    parts: tuple[PromptPart, ...]
    """The prompt's messages in order (the host's preamble first, when there is one)."""
    time_ms: int
    """When it was sent, in the trace's own clock (Unix milliseconds)."""
    output_tokens: int
    """Tokens generated in answer."""
    breakpoints: tuple[int, ...] = ()
    """Prefix lengths (in parts) where the host puts cache breakpoints (breakpoint family)."""
    cached: bool = True
    """False for a call that asks for no caching (Pi's summarisation call)."""


@dataclass(frozen=True, slots=True)
class Bill:
    """What one request cost."""

    fresh_input: int
    """Input tokens read for the first time (neither read from nor written to the cache)."""
    cache_read: int
    """Input tokens replayed from the cache."""
    cache_write: int
    """Input tokens written to the cache at the write rate."""
    output: int
    """Generated tokens."""
    cost: float
    """Dollars."""
    above_tier: bool
    """Whether the whole request was billed at the long-context rates."""

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: fresh input, cache read and cache write."""
        return self.fresh_input + self.cache_read + self.cache_write


@dataclass(frozen=True, slots=True)
class CacheOutcome:
    """How a cache served one prompt."""

    read: int
    """Tokens replayed."""
    written: int
    """Tokens written at the write rate."""


class PrefixCache(Protocol):
    """One family's cache behaviour."""

    def serve(self, request: BilledRequest) -> CacheOutcome:
        """Serve ``request``: what it reads and writes; the cache remembers it."""
        ...


class _Prefixes:
    """Chained keys and running token sums of one prompt's prefixes.

    ``keys[p]`` names the first ``p`` parts (a hash chained part by part, so two prompts
    share ``keys[p]`` exactly when their first ``p`` digests agree); ``tokens[p]`` is their
    token total. Index 0 is the empty prefix.
    """

    def __init__(self, parts: tuple[PromptPart, ...]) -> None:
        self.keys: list[bytes] = [b""]
        self.tokens: list[int] = [0]
        key = b""
        total = 0
        for part in parts:
            key = hashlib.blake2b(key + part.digest.encode("ascii"), digest_size=16).digest()
            total += part.tokens
            self.keys.append(key)
            self.tokens.append(total)


class AutomaticPrefixCache:
    """OpenAI's automatic caching: any live prefix hits, counted in whole steps."""

    def __init__(self, rules: CacheRules) -> None:
        self.rules = rules
        self._last_used: dict[bytes, int] = {}
        self._served = 0

    def serve(self, request: BilledRequest) -> CacheOutcome:
        prefixes = _Prefixes(request.parts)
        lifetime_ms = self.rules.lifetime_seconds * 1000
        now = request.time_ms
        matched = 0
        for position in range(1, len(prefixes.keys)):
            # Every prefix of a cached prompt is cached too, so the first miss ends the match.
            last = self._last_used.get(prefixes.keys[position])
            if last is None or now - last > lifetime_ms:
                break
            matched = position
        shared = prefixes.tokens[matched]
        read = 0
        if shared >= self.rules.minimum_tokens:
            read = shared - shared % self.rules.step_tokens
        if prefixes.tokens[-1] >= self.rules.minimum_tokens:
            for key in prefixes.keys[1:]:
                self._last_used[key] = now
        self._served += 1
        if self._served % 64 == 0:
            self._forget_before(now - lifetime_ms)
        return CacheOutcome(read=read, written=0)

    def _forget_before(self, oldest_ms: int) -> None:
        self._last_used = {
            key: last_used for key, last_used in self._last_used.items() if last_used >= oldest_ms
        }


class BreakpointPrefixCache:
    """Anthropic's breakpoint caching: entries only where a breakpoint was, short lookback."""

    def __init__(self, rules: CacheRules) -> None:
        self.rules = rules
        self._last_used: dict[bytes, int] = {}

    def serve(self, request: BilledRequest) -> CacheOutcome:
        prefixes = _Prefixes(request.parts)
        count = len(request.parts)
        cacheable = sorted(
            {
                position
                for position in request.breakpoints
                if 0 < position <= count and prefixes.tokens[position] >= self.rules.minimum_tokens
            }
        )
        if not cacheable:
            return CacheOutcome(read=0, written=0)
        lifetime_ms = self.rules.lifetime_seconds * 1000
        now = request.time_ms
        hit = 0
        for breakpoint in cacheable:
            lowest = max(1, breakpoint - self.rules.lookback_blocks)
            for position in range(breakpoint, lowest - 1, -1):
                key = prefixes.keys[position]
                last = self._last_used.get(key)
                if last is not None and now - last <= lifetime_ms:
                    self._last_used[key] = now  # a hit refreshes the entry's lifetime
                    hit = max(hit, position)
                    break
        read = prefixes.tokens[hit]
        written = max(0, prefixes.tokens[cacheable[-1]] - read)
        for breakpoint in cacheable:
            self._last_used[prefixes.keys[breakpoint]] = now
        return CacheOutcome(read=read, written=written)


def make_cache(rules: CacheRules) -> PrefixCache:
    """The cache simulation for a family's rules."""
    if rules.kind == "automatic":
        return AutomaticPrefixCache(rules)
    return BreakpointPrefixCache(rules)


class SimulatedProvider:
    """Bills requests for one model, remembering what its cache holds between them."""

    def __init__(self, prices: ModelPrices) -> None:
        self.prices = prices
        self.cache = make_cache(prices.rules)

    def bill(self, request: BilledRequest) -> Bill:
        """Serve ``request`` and return its bill."""
        prompt = sum(part.tokens for part in request.parts)
        outcome = self.cache.serve(request) if request.cached else CacheOutcome(0, 0)
        fresh = prompt - outcome.read - outcome.written
        # The long-context tier prices the whole request, not only the tokens past the line.
        rates = self.prices.rates_for(prompt)
        cost = (
            fresh * rates.input
            + outcome.read * rates.cache_read
            + outcome.written * rates.cache_write
            + request.output_tokens * rates.output
        ) / TOKENS_PER_PRICE_UNIT
        return Bill(
            fresh_input=fresh,
            cache_read=outcome.read,
            cache_write=outcome.written,
            output=request.output_tokens,
            cost=cost,
            above_tier=self.prices.above_tier(prompt),
        )
