"""How the demo's bill is said: the footer's comparison and the ``/fold-status`` note.

The demo's requests are billed by :class:`~pifold_agent.pricing.session_bill.SessionBill` (the
benchmark's simulated provider, at the recorded model's prices and cache rules), and their
usage reaches the footer the way any provider's does: its token, cache and cost figures are
the session's own. What no provider reports is what native compaction at the same budget
would have cost: the footer shows it after the cost, marked as an estimate
(``$0.42 · compaction ~$1.10``), and ``/fold-status`` says in one paragraph where both figures
come from.
"""

from __future__ import annotations

from dataclasses import dataclass

from pifold_agent.pricing.prices import ModelPrices
from pifold_agent.pricing.session_bill import SessionBill
from pifold_tui.app.footer import Prices
from pifold_tui.app.footer_fit import compact_count


def footer_prices(prices: ModelPrices) -> Prices:
    """The footer's four prices for a model of the price book (its standard rates)."""
    rates = prices.rates
    return Prices(rates.input, rates.output, rates.cache_read, rates.cache_write)


@dataclass(frozen=True)
class DemoBill:
    """The demo's bill, and what the price book said about it."""

    bill: SessionBill
    """The session's bill and native compaction's, request by request."""
    as_of: str
    """The date the price file was compiled."""
    own_prices: bool
    """Whether the recorded model is in the price file (otherwise its default model's prices
    apply)."""

    def comparison(self) -> str | None:
        """The footer's figure after the cost: ``compaction ~$1.10`` (``None`` before the
        first request is billed)."""
        if not self.bill.compaction.requests:
            return None
        return f"compaction ~${self.bill.compaction.cost:,.2f}"

    def note(self) -> str:
        """The paragraph ``/fold-status`` shows in the demo."""
        folded, compaction = self.bill.folded, self.bill.compaction
        compactions = self.bill.native.compactions
        model = self.bill.prices.model
        priced = model if self.own_prices else f"{model} (the price file's default model)"
        return (
            f"Demo bill, simulated with {priced} prices and prompt-cache rules (price file "
            f"of {self.as_of}): ${folded.cost:,.2f} for {folded.requests} requests, "
            f"{compact_count(folded.cache_read)} tokens read from the cache. Native "
            f"compaction at the same {self.bill.budget:,}-token budget, billed beside it on "
            f"the same requests: ~${compaction.cost:,.2f} ({compactions} "
            f"compaction{'' if compactions == 1 else 's'}; the summaries' lengths are "
            "assumed)."
        )


__all__ = ["DemoBill", "footer_prices"]
