"""A session billed as the simulated provider bills it, and native compaction beside it.

The no-key demo plays a recorded session through a scripted provider, which has no bill of
its own: it reports the whole prompt as fresh input, so a footer would read ``cache 0`` and
no cost for a session that sends over a million tokens. :class:`BilledProvider` wraps such a
provider and reports, for each request, what the benchmark's simulated provider
(:mod:`pifold_agent.pricing.prefix_cache`) bills for it: its prompt split into fresh input,
cache reads and cache writes under the model's cache rules, and its output. That usage goes
through the loop like any provider's (the session's entries, the engine's measurement, the
footer), so the bar, the footer and ``/fold-status`` read one figure.

**What compaction would have cost.** Beside each request, :class:`SessionBill` asks the
benchmark's native arm (:mod:`pifold_agent.pricing.compaction`, the agent's own compaction
planner) for the request Pi's compaction would have sent in its place, fed the same entries
the session recorded, under the same budget, and bills it on a second simulated cache with
the same clock, preamble, output and prices, summarisation calls included. The two figures
therefore differ only in how the window was kept. The alternatives were weaker: the trace's
recorded usage is a bill at the original host's window (no budget at all), so set beside a
folded session at a small budget it would credit folding with what the budget saved; and a
replay of the native arm before the demo starts would bill on the trace's clock and miss
what the user adds (a ``!command``'s output), where this one sees exactly what the session
saw. It costs little: the arm's request is a list of digests, and its planner runs only at a
compaction. A compaction's summary cannot be known without a model, so its length is the
bench's assumption (:data:`~pifold_agent.pricing.compaction.DEFAULT_SUMMARY_TOKENS`): the
figure is an estimate, and says so (``~``).

Token counts are the wrapped provider's own (the scripted provider counts what is sent with
the engine's tokenizer); both bills use them, so their ratio does not depend on how far they
are from a provider's own count.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace

from pifold_agent.loop.messages import in_context, now_ms
from pifold_agent.pricing.compaction import DEFAULT_SUMMARY_TOKENS, NativeCompactionArm
from pifold_agent.pricing.prefix_cache import Bill, BilledRequest, PromptPart, SimulatedProvider
from pifold_agent.pricing.prices import ModelPrices
from pifold_agent.providers.base import (
    Provider,
    ProviderRequest,
    StreamDone,
    StreamEvent,
    UsageUpdate,
)
from pifold_core.canonical import JsonValue, canonical_bytes, sha256_hex
from pifold_core.entries import Entry, Usage
from pifold_core.tokens import TokenCounter

PREAMBLE_DIGEST = "preamble: system prompt and tools"
"""The first part of every billed prompt: the system prompt and the tool definitions, the
same bytes on every request of a session."""


@dataclass
class BillTotals:
    """Bills of one way of keeping the window, summed."""

    requests: int = 0
    """Requests billed (summarisation calls not counted)."""
    side_calls: int = 0
    """Summarisation calls billed."""
    cost: float = 0.0
    """Dollars, summarisation calls included."""
    fresh_input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0

    def add(self, bill: Bill, side_call: bool = False) -> None:
        """Count one bill (``side_call``: a summarisation call, not a request)."""
        if side_call:
            self.side_calls += 1
        else:
            self.requests += 1
        self.cost += bill.cost
        self.fresh_input += bill.fresh_input
        self.cache_read += bill.cache_read
        self.cache_write += bill.cache_write
        self.output += bill.output


def usage_of(bill: Bill) -> Usage:
    """The usage a provider would report for ``bill``."""
    return Usage(
        input_tokens=bill.fresh_input,
        output_tokens=bill.output,
        cache_read_tokens=bill.cache_read,
        cache_write_tokens=bill.cache_write,
    )


class SessionBill:
    """The session's bill and native compaction's, one request at a time."""

    def __init__(
        self,
        prices: ModelPrices,
        counter: TokenCounter,
        budget: int,
        entries: Callable[[], Sequence[Entry]],
        summary_tokens: int = DEFAULT_SUMMARY_TOKENS,
    ) -> None:
        """Bill under ``prices``.

        Args:
            prices: The model's prices and cache rules.
            counter: The tokenizer the session is counted with.
            budget: The serving budget native compaction keeps under (the session's own).
            entries: The session's recorded entries so far (native compaction is fed them).
            summary_tokens: The assumed length of a compaction summary.
        """
        self.prices = prices
        self.counter = counter
        self.budget = budget
        self.entries = entries
        """Reads the session's entries; those not yet fed to :attr:`native` are, per request."""
        self.folded = BillTotals()
        """The session's own bill."""
        self.compaction = BillTotals()
        """What native compaction at the same budget would have been billed."""
        self.native = NativeCompactionArm(counter, budget, summary_tokens)
        """Pi's compaction, re-enacted beside the session."""
        self._folded_cache = SimulatedProvider(prices)
        self._compaction_cache = SimulatedProvider(prices)
        self._fed = 0

    def bill(
        self, request: ProviderRequest, prompt_tokens: int, sent_at_ms: int, output: int
    ) -> Bill:
        """Bill one request of the session (``prompt_tokens``: its whole prompt as counted),
        and the request native compaction would have sent in its place; the session's bill."""
        messages = [self._part(message) for message in request.messages]
        preamble = max(0, prompt_tokens - sum(part.tokens for part in messages))
        parts = (PromptPart(PREAMBLE_DIGEST, preamble), *messages)
        # Where the Anthropic adapter puts its breakpoints: the system prompt, the settled
        # boundary and the tail (an automatic cache ignores them).
        places = {1, len(parts)}
        if request.settled_messages:
            places.add(1 + min(request.settled_messages, len(messages)))
        billed = self._folded_cache.bill(
            BilledRequest(parts, sent_at_ms, output, tuple(sorted(places)))
        )
        self.folded.add(billed)
        self._bill_compaction(preamble, sent_at_ms, output)
        return billed

    def _part(self, message: dict[str, JsonValue]) -> PromptPart:
        digest = sha256_hex(canonical_bytes(message))
        return PromptPart(digest, self.counter.count_message(message, digest))

    def _bill_compaction(self, preamble: int, sent_at_ms: int, output: int) -> None:
        recorded = self.entries()
        for entry in recorded[self._fed :]:
            if in_context(entry):
                self.native.append(entry)
        self._fed = len(recorded)
        request = self.native.prepare_request(sent_at_ms)
        for call in request.side_calls:
            side = BilledRequest(
                (PromptPart(f"side call {call.label}", call.prompt_tokens),),
                sent_at_ms,
                call.output_tokens,
                cached=False,
            )
            self.compaction.add(self._compaction_cache.bill(side), side_call=True)
        parts = (
            PromptPart(PREAMBLE_DIGEST, preamble),
            *(
                PromptPart(digest, tokens)
                for digest, tokens in zip(request.digests, request.tokens, strict=True)
            ),
        )
        # Pi's breakpoints: the end of the system prompt and the end of the request.
        billed = BilledRequest(parts, sent_at_ms, output, (1, len(parts)))
        self.compaction.add(self._compaction_cache.bill(billed))


class BilledProvider:
    """A provider whose usage is what :class:`SessionBill` bills for each of its requests.

    The wrapped provider must report its whole prompt as input (as the scripted provider
    does); its early usage updates are dropped, since the split is known once the request is
    billed, at its end.
    """

    def __init__(
        self, inner: Provider, bill: SessionBill, clock: Callable[[], int] = now_ms
    ) -> None:
        self.inner = inner
        """The provider that answers (the demo's paced scripted provider)."""
        self.session_bill = bill
        """Where each request is billed."""
        self.clock = clock
        """Milliseconds now: when a request is sent, as the caches see it."""

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str:
        return self.inner.model

    async def stream(self, request: ProviderRequest) -> AsyncIterator[StreamEvent]:
        sent_at = self.clock()
        async for event in self.inner.stream(request):
            if isinstance(event, UsageUpdate):
                continue
            if isinstance(event, StreamDone) and event.stop_reason != "error":
                usage = event.usage
                prompt = usage.prompt_tokens if usage is not None else None
                output = usage.output_tokens if usage is not None else None
                # A reply whose counts are unknown (a provider's figure refused at the door)
                # is passed on unbilled: there is nothing to bill it by.
                if prompt is not None and output is not None:
                    billed = self.session_bill.bill(request, prompt, sent_at, output)
                    event = replace(event, usage=usage_of(billed))
            yield event


__all__ = ["PREAMBLE_DIGEST", "BillTotals", "BilledProvider", "SessionBill", "usage_of"]
