"""The app's bottom line: model, session tokens and cost, working directory, and key hints.

Tokens and cost come from what the provider reported (the usage on each assistant message)
priced with the model descriptor's table (``pifold_agent/providers/models.py``). A model the
table does not know has no price: the cost then reads ``$?`` rather than a made-up zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from pifold_core.entries import Usage


@dataclass(frozen=True, slots=True)
class Prices:
    """Dollars per million tokens of each kind (a model descriptor's four prices)."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, usage: Usage) -> float:
        """What ``usage`` cost, in dollars."""
        return (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_read_tokens * self.cache_read
            + usage.cache_write_tokens * self.cache_write
        ) / 1_000_000


@dataclass
class UsageTotals:
    """Every request's usage this session, summed."""

    input_tokens: int = 0
    """Prompt tokens of every request (uncached, cache read and cache write together)."""
    output_tokens: int = 0
    cache_read_tokens: int = 0
    requests: int = 0
    cost: float = 0.0
    """Dollars, when the model has prices."""

    def add(self, usage: Usage, prices: Prices | None) -> None:
        """Count one request's usage."""
        self.input_tokens += usage.prompt_tokens
        self.output_tokens += usage.output_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.requests += 1
        if prices is not None:
            self.cost += prices.cost(usage)


def compact_count(tokens: int) -> str:
    """``950``, ``12.3k``, ``4.56M``, ``1.20B``: short enough for the footer. The unit is
    chosen after rounding, so 999,960 reads ``1.00M``, never ``1000.0k``."""
    if tokens < 1_000:
        return str(tokens)
    if round(tokens / 1_000, 1) < 1_000:
        return f"{tokens / 1_000:.1f}k"
    if round(tokens / 1_000_000, 2) < 1_000:
        return f"{tokens / 1_000_000:.2f}M"
    return f"{tokens / 1_000_000_000:.2f}B"


def short_path(path: Path, home: Path | None = None, width: int = 40) -> str:
    """``path`` with the home folder as ``~``, cut from the left to ``width`` characters."""
    home = Path.home() if home is None else home
    text = str(path)
    if path == home or home in path.parents:
        text = "~/" + str(path.relative_to(home)) if path != home else "~"
    return text if len(text) <= width else "…" + text[-(width - 1) :]


def footer_text(
    model: str,
    totals: UsageTotals,
    priced: bool,
    cwd: Path,
    hints: str,
    width: int = 120,
) -> Text:
    """The footer's one line: what is running, what it cost so far, where, and the keys."""
    cost = f"${totals.cost:,.2f}" if priced else "$?"
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(model, style="bold")
    line.append(
        f" · ↑{compact_count(totals.input_tokens)} ↓{compact_count(totals.output_tokens)}"
        f" (cache {compact_count(totals.cache_read_tokens)}) · {cost} · ",
    )
    line.append(short_path(cwd, width=max(12, width // 4)), style="dim")
    if hints:
        line.append("  " + hints, style="dim")
    return line


class SessionFooter(Static):
    """The footer line; :meth:`show` repaints it."""

    DEFAULT_CSS = """
    SessionFooter {
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    """

    def __init__(self, model: str, cwd: Path, prices: Prices | None, hints: str = "") -> None:
        super().__init__(id="session-footer", markup=False)
        self.model = model
        """The model's id as the footer names it."""
        self.cwd = cwd
        self.prices = prices
        """The model's prices; ``None`` when the table has none (the cost reads ``$?``)."""
        self.totals = UsageTotals()
        """The session's usage so far."""
        self.hints = hints
        """The keys worth knowing (``esc abort · ctrl+p commands``), after the figures."""

    def on_mount(self) -> None:
        self.show()

    def on_resize(self) -> None:
        self.show()

    def count(self, usage: Usage) -> None:
        """Add one request's usage and repaint."""
        self.totals.add(usage, self.prices)
        self.show()

    def show(self) -> None:
        """Repaint from the current figures."""
        width = self.size.width or 120
        self.update(
            footer_text(
                self.model, self.totals, self.prices is not None, self.cwd, self.hints, width
            )
        )


__all__ = [
    "Prices",
    "SessionFooter",
    "UsageTotals",
    "compact_count",
    "footer_text",
    "short_path",
]
