"""The app's bottom line: model, session tokens and cost, working directory, and key hints.

Tokens and cost are the provider's usage priced with the model descriptor's table; an unknown
model's cost reads ``$?``, not a made-up zero. The demo's cost is its simulated bill's, then
native compaction's (``$0.42 · compaction ~$1.10``, :mod:`pifold_tui.app.demo_bill`). The
session is read through :class:`ShownSession`, so the footer imports no module of the app.
What a narrow line keeps is :mod:`pifold_tui.app.footer_fit`'s to say. The provider's cache
figures are counted as each reply is recorded (:meth:`SessionFooter.record`), so a repaint
costs the same at any session length.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual.widgets import Static

from pifold_tui.app.footer_fit import (
    FIGURE_SEPARATOR,
    HINT_SEPARATOR,
    FooterFigures,
    compact_count,
    fit_footer,
)

if TYPE_CHECKING:
    # Only the session's messages are counted, so the first frame's footer (no session yet)
    # imports neither the messages nor the cache verdicts (issue 23 item 5).
    from pifold_agent.cache_report.tally import RunningTally
    from pifold_agent.loop.recorder import SessionRecorder
    from pifold_core.entries import Entry, Usage

DEMO_MODEL = "demo · a recorded Pi session"
"""What the footer names as the model in the demo."""


@dataclass(frozen=True, slots=True)
class Prices:
    """Dollars per million tokens of each kind (a model descriptor's four prices)."""

    input: float
    output: float
    cache_read: float
    cache_write: float

    def cost(self, usage: Usage) -> float:
        """What ``usage`` cost, in dollars (its known figures: an unknown one adds nothing)."""
        return (
            (usage.input_tokens or 0) * self.input
            + (usage.output_tokens or 0) * self.output
            + (usage.cache_read_tokens or 0) * self.cache_read
            + (usage.cache_write_tokens or 0) * self.cache_write
        ) / 1_000_000


class BillNote(Protocol):
    """A bill kept beside the provider's (the demo's): what another way would have cost."""

    def comparison(self) -> str | None: ...


class ShownSession(Protocol):
    """What the footer reads of the session it shows (the app's ``AppSession``)."""

    demo: bool
    cwd: Path
    prices: Prices | None
    recorder: SessionRecorder

    @property
    def model(self) -> str: ...

    @property
    def bill(self) -> BillNote | None: ...


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
        """Count one request's usage (its known figures: an unknown one adds nothing)."""
        self.input_tokens += sum(
            figure or 0
            for figure in (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
        )
        self.output_tokens += usage.output_tokens or 0
        self.cache_read_tokens += usage.cache_read_tokens or 0
        self.requests += 1
        if prices is not None:
            self.cost += prices.cost(usage)


def footer_text(
    model: str,
    totals: UsageTotals,
    priced: bool,
    cwd: Path | None,
    hints: str,
    width: int = 120,
    home: Path | None = None,
    comparison: str | None = None,
    cache_note: str | None = None,
) -> Text:
    """The footer's one line in ``width`` cells: what is running, what it cost so far, where,
    and the keys (:func:`fit_footer` says what goes first when the line is narrow)."""
    figures = FooterFigures(
        model=model,
        tokens=f"↑{compact_count(totals.input_tokens)} ↓{compact_count(totals.output_tokens)}",
        cache=f" (cache {compact_count(totals.cache_read_tokens)}"
        + (f", {cache_note})" if cache_note else ")"),
        cost=f"${totals.cost:,.2f}" if priced else "$?",
        priced=priced,
        comparison=comparison,
        cwd=cwd,
        hints=hints,
    )
    parts = fit_footer(figures, width, home)
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(parts.model, style="bold")
    shown = ((parts.usage, ""), (parts.cost, ""), (parts.comparison, ""), (parts.directory, "dim"))
    for figure, style in shown:
        if figure:
            line.append(FIGURE_SEPARATOR)
            line.append(figure, style=style)
    if parts.hints:
        line.append("  " + HINT_SEPARATOR.join(parts.hints), style="dim")
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

    def __init__(
        self, model: str, cwd: Path | None, prices: Prices | None, hints: str = ""
    ) -> None:
        super().__init__(id="session-footer", markup=False)
        self.model = model
        """The model's id as the footer names it."""
        self.cwd = cwd
        """The working directory (``None``: not shown, as in the demo)."""
        self.prices = prices
        """The model's prices; ``None`` when the table has none (the cost reads ``$?``)."""
        self.totals = UsageTotals()
        """The session's usage so far."""
        self.hints = hints
        """The keys worth knowing (``esc abort · ctrl+p commands``), after the figures."""
        self.comparison: str | None = None
        """What another way would have cost, after the cost (the demo's compaction figure)."""
        self.cache: RunningTally | None = None
        """The provider's cache figures of the session's replies, counted as each message is
        recorded (:meth:`record`), so a repaint reads no message again; ``None`` until a
        session is opened or a reply recorded."""

    def on_mount(self) -> None:
        self.show()

    def on_resize(self) -> None:
        self.show()

    def open(self, session: ShownSession, hints: str) -> None:
        """Show ``session``'s figures (its recorded usage and cache figures summed, the one
        time the footer reads every message) with ``hints``."""
        self.model = DEMO_MODEL if session.demo else session.model
        # The demo reads and writes nothing in the directory: its room goes to the figures.
        self.cwd = None if session.demo else session.cwd
        self.prices = session.prices
        self.hints = hints
        self.comparison = None if session.bill is None else session.bill.comparison()
        self.totals = UsageTotals()
        self.cache = cache = new_tally()
        for entry in session.recorder.recorded():
            if entry.usage is not None:
                self.totals.add(entry.usage, self.prices)
            cache.add(entry)
        self.show()

    def show_hints(self, hints: str) -> None:
        """Name ``hints`` from now on."""
        self.hints = hints
        self.show()

    def record(self, entry: Entry, comparison: str | None = None) -> None:
        """Count one message the session has just recorded: a reply's usage (with the
        comparison as it stands now) and its cache verdict; repaint when it was a reply."""
        if entry.kind != "assistant":
            return
        if self.cache is None:
            self.cache = new_tally()
        self.cache.add(entry)
        if entry.usage is None:
            self.show()
        else:
            self.count(entry.usage, comparison)

    def count(self, usage: Usage, comparison: str | None = None) -> None:
        """Add one request's usage (and the comparison as it stands now) and repaint."""
        self.comparison = comparison
        self.totals.add(usage, self.prices)
        self.show()

    def show(self) -> None:
        """Repaint from the current figures."""
        width = self.size.width or 120
        self.update(
            footer_text(
                self.model,
                self.totals,
                self.prices is not None,
                self.cwd,
                self.hints,
                width,
                comparison=self.comparison,
                cache_note=None if self.cache is None else self.cache.tally().footer_figure(),
            )
        )


def new_tally() -> RunningTally:
    """An empty count of cache figures (imported here, once a session is there to count)."""
    from pifold_agent.cache_report.tally import RunningTally

    return RunningTally()


__all__ = [
    "DEMO_MODEL",
    "BillNote",
    "Prices",
    "SessionFooter",
    "ShownSession",
    "UsageTotals",
    "footer_text",
]
