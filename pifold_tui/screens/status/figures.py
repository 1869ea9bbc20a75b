"""How the fold screens write numbers, and the few colours they use.

Every figure is exact, with a percentage beside it where it is a share of something; a
figure that is the engine's own estimate rather than the provider's count carries ``~``
(terminal-agents §5: users asked for both, and for estimates to say so). Pure functions and
plain data: the screens pass in the colours of the theme they run under.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from rich.table import Table
from rich.text import Text

from pifold_core.composition import CATEGORY_ORDER, Category, Reading

ESTIMATE = "~"
"""Prefix of a figure the engine estimated (tiktoken) rather than the provider counted."""


@dataclass(frozen=True, slots=True)
class ReportStyles:
    """Colours of a report, as Rich style strings, taken from the running theme."""

    text: str = "default"
    """Ordinary figures."""
    muted: str = "dim"
    """Labels of secondary figures and the actions beside rows."""
    heading: str = "bold"
    """Section headings."""
    warning: str = "bold red"
    """A figure that must be noticed: an unattributed rewrite, folding stopped."""
    good: str = "green"
    """A figure that is as it should be (zero unattributed rewrites)."""
    categories: tuple[str, ...] = ("default",) * len(CATEGORY_ORDER)
    """The fold bar's colour per category, in bar order, so labels match the bar."""

    def category(self, category: Category) -> str:
        """The bar's colour for ``category``."""
        return self.categories[CATEGORY_ORDER.index(category)]


def tokens(count: int, estimated: bool = False) -> str:
    """``12,345`` or, for an estimate, ``~12,345``."""
    return f"{ESTIMATE if estimated else ''}{count:,}"


def share(part: int, whole: int) -> str:
    """``20.6%`` of ``whole``; ``–`` when ``whole`` is not positive."""
    if whole <= 0:
        return "–"
    return f"{100 * part / whole:.1f}%"


def byte_size(count: int) -> str:
    """``812 B``, ``12.5 KiB``, ``3.2 MiB``, ``1.0 GiB``: the scale of an exact count."""
    if count < 1024:
        return f"{count:,} B"
    value = count / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} GiB"


def timestamp(milliseconds: int | None) -> str:
    """A host timestamp as ``2026-04-21 14:06 UTC``, or ``time unknown``."""
    if milliseconds is None or milliseconds <= 0:
        return "time unknown"
    moment = datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


EXPECTED_LABEL = "expected next request"
"""The occupancy the commit trigger compares, as both fold screens name it."""

AIM_LABEL = "commit aims for (minTarget)"
"""``minTarget`` × budget, as both fold screens name it: one figure, one name."""


def aim_words(aim_tokens: int) -> str:
    """The band's aim in a sentence: ``aims for 4,800 tokens (minTarget)``, the figure and
    the name ``/fold-status`` gives it."""
    return f"aims for {aim_tokens:,} tokens (minTarget)"


READING_WORDS: dict[Reading, str] = {
    Reading.MEASURED: "measured by the provider (plus ~ what was appended since)",
    Reading.NOT_MEASURED: "not measured yet",
    Reading.ESTIMATED_AFTER_COMMIT: "estimated after commit: the provider has not counted the "
    "rewritten window yet",
    Reading.ESTIMATED: "estimated: no provider count in this session",
}
"""How each reading state is named on the status screen."""


def reading_is_estimate(reading: Reading) -> bool:
    """Whether a figure with this reading is the engine's estimate, not a count."""
    return reading is not Reading.MEASURED


def figure_table() -> Table:
    """The four-column grid every section uses: what, how many, what share, what to do."""
    table = Table.grid(padding=(0, 2), expand=False)
    table.add_column("figure", no_wrap=True)
    table.add_column("value", justify="right", no_wrap=True)
    table.add_column("share", justify="right", no_wrap=True)
    table.add_column("action", overflow="fold")
    return table


def add_figure_row(
    table: Table,
    label: str,
    value: str | Text,
    part: str = "",
    action: str | Text = "",
    styles: ReportStyles | None = None,
) -> None:
    """One row of a :func:`figure_table`; the action is muted unless it is styled already."""
    muted = styles.muted if styles is not None else "dim"
    action_text = action if isinstance(action, Text) else Text(action, style=muted)
    table.add_row(label, value, part, action_text)


def heading(title: str, styles: ReportStyles) -> Text:
    """A section heading."""
    return Text(title, style=styles.heading)


__all__ = [
    "AIM_LABEL",
    "ESTIMATE",
    "EXPECTED_LABEL",
    "READING_WORDS",
    "ReportStyles",
    "add_figure_row",
    "aim_words",
    "byte_size",
    "figure_table",
    "heading",
    "reading_is_estimate",
    "share",
    "timestamp",
    "tokens",
]
