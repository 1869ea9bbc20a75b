"""What the footer line holds at some width: its pieces, the order they go in, and how a
figure or a path is shortened to fit.

The footer (:mod:`pifold_tui.app.footer`) gathers its figures as text
(:class:`FooterFigures`); :func:`fit_footer` keeps as many of them as the width holds, the
most telling first, and shortens the working directory in the middle. Nothing here reads
the session or draws: it is plain text in, plain text out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from rich.cells import cell_len


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


ELLIPSIS = "…"

MIN_PATH_WIDTH = 12
"""The directory is shortened to no fewer cells than this; narrower, it is left out. It
grows to at most a third of the line, so a deep folder does not push out the figures."""

FIGURE_SEPARATOR = " · "
"""Between the model and the footer's figures."""

HINT_SEPARATOR = " · "
"""Between the key hints the app passes (``esc abort · ctrl+p commands · /help``)."""

ESSENTIAL_KEYS = ("esc ", "ctrl+p ")
"""Hints the footer keeps at any width: abort, and the palette (which lists every other
command, so the rest of the hints can go)."""


def middle_ellipsis(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, its middle replaced by ``…``.

    A path keeps its first folder and as many whole trailing names as fit
    (``~/…/pifold/main``); when not even the last name fits beside the first folder, the
    end of the text is kept (``…ifold/main``).
    """
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    slash = text.find("/", 1)
    head = text[: slash + 1] if slash > 0 else ""
    tail = ""
    for name in reversed(text[len(head) :].split("/")):
        candidate = f"{name}/{tail}" if tail else name
        if len(head) + len(ELLIPSIS) + 1 + len(candidate) > width:
            break
        tail = candidate
    if head and tail:
        return f"{head}{ELLIPSIS}/{tail}"
    return ELLIPSIS + text[len(text) - (width - 1) :]


def short_path(path: Path, home: Path | None = None, width: int = 40) -> str:
    """``path`` with the home folder as ``~``, shortened in the middle to ``width`` cells."""
    home = Path.home() if home is None else home
    text = str(path)
    if path == home or home in path.parents:
        text = "~/" + str(path.relative_to(home)) if path != home else "~"
    return middle_ellipsis(text, width)


def split_hints(hints: str) -> tuple[list[str], list[str], list[str]]:
    """The app's hints in three kinds: those kept at any width (Esc, Ctrl+P), the other keys,
    and the slash commands (which the palette lists anyway)."""
    every = [hint for hint in hints.split(HINT_SEPARATOR) if hint]
    essential = [hint for hint in every if hint.startswith(ESSENTIAL_KEYS)]
    commands = [hint for hint in every if hint.startswith("/")]
    keys = [hint for hint in every if hint not in essential and hint not in commands]
    return essential, keys, commands


@dataclass(frozen=True, slots=True)
class FooterParts:
    """The pieces a footer line of some width holds (``None``: left out)."""

    model: str
    """The model's name (cut with ``…`` only when the line cannot hold even it and the
    essential hints)."""
    tokens: str | None = None
    """``↑1.08M ↓19.5k``: prompt and output tokens of the session."""
    cache: str | None = None
    """`` (cache 900.0k)``: prompt tokens read from the provider's cache."""
    cost: str | None = None
    """``$12.34``, or ``$?`` for a model without prices."""
    comparison: str | None = None
    """What another way would have cost (the demo's ``compaction ~$1.10``)."""
    directory: str | None = None
    """The working directory, shortened to fit."""
    hints: tuple[str, ...] = ()
    """The key hints kept, in the order the app gave them."""

    @property
    def usage(self) -> str:
        """The token figures with the cache figure, as shown."""
        return (self.tokens or "") + (self.cache or "")

    def text(self) -> str:
        """The line as plain text."""
        figures = [
            part for part in (self.usage, self.cost, self.comparison, self.directory) if part
        ]
        line = FIGURE_SEPARATOR.join([self.model, *figures])
        return line + ("  " + HINT_SEPARATOR.join(self.hints) if self.hints else "")

    def width(self) -> int:
        """Cells the line takes."""
        return cell_len(self.text())


@dataclass(frozen=True, slots=True)
class FooterFigures:
    """Everything the footer could show, before it is fitted to a width."""

    model: str
    tokens: str
    """``↑1.08M ↓19.5k``."""
    cache: str
    """`` (cache 900.0k)``."""
    cost: str
    """``$12.34`` or ``$?``."""
    priced: bool
    """Whether the cost is a real figure (a ``$?`` says little, so it goes early)."""
    comparison: str | None
    """What another way would have cost, said after the cost (the demo's)."""
    cwd: Path | None
    """The working directory; ``None`` when it says nothing (the demo touches none)."""
    hints: str
    """The app's hints, ``·``-separated."""


def fit_footer(figures: FooterFigures, width: int, home: Path | None = None) -> FooterParts:
    """What the footer shows in ``width`` cells. Pieces are added in this order while they
    fit: the model and the Esc and Ctrl+P hints (always; the model is cut with ``…`` if even
    they do not fit), the cost (the token figures for a model without prices) and the
    comparison after it (the demo's point: what compaction would have cost), the other key
    hints (F2 in the demo: no other place names them), the directory (at least
    :data:`MIN_PATH_WIDTH` cells, shortened in the middle), the token figures, the directory
    grown into what is left (up to a third of the line), the cache figure, a ``$?`` cost, and
    last the slash-command hints (the palette lists every command)."""
    essential, keys, commands = split_hints(figures.hints)
    order = [hint for hint in figures.hints.split(HINT_SEPARATOR) if hint]
    parts = FooterParts(model=figures.model, hints=tuple(essential))
    if parts.width() > width:
        keep = max(0, len(figures.model) - (parts.width() - width) - len(ELLIPSIS))
        return replace(parts, model=figures.model[:keep] + ELLIPSIS)

    def added(current: FooterParts, proposal: FooterParts) -> FooterParts:
        return proposal if proposal.width() <= width else current

    def with_hint(current: FooterParts, hint: str) -> FooterParts:
        kept = [other for other in order if other in current.hints or other == hint]
        return added(current, replace(current, hints=tuple(kept)))

    if figures.priced:
        parts = added(parts, replace(parts, cost=figures.cost))
        if parts.cost is not None and figures.comparison is not None:
            parts = added(parts, replace(parts, comparison=figures.comparison))
    else:
        parts = added(parts, replace(parts, tokens=figures.tokens))
    for hint in keys:
        parts = with_hint(parts, hint)
    cwd = figures.cwd
    natural = "" if cwd is None else short_path(cwd, home, width=len(str(cwd)))
    if cwd is not None:
        shortest = short_path(cwd, home, width=min(len(natural), MIN_PATH_WIDTH))
        parts = added(parts, replace(parts, directory=shortest))
    parts = added(parts, replace(parts, tokens=figures.tokens))
    if cwd is not None and parts.directory is not None:
        room = min(width - parts.width() + len(parts.directory), width // 3)
        grown = short_path(cwd, home, width=min(len(natural), room))
        parts = replace(parts, directory=grown)
    if parts.tokens is not None:
        parts = added(parts, replace(parts, cache=figures.cache))
    parts = added(parts, replace(parts, cost=figures.cost))
    for hint in commands:
        parts = with_hint(parts, hint)
    return parts


__all__ = [
    "ELLIPSIS",
    "ESSENTIAL_KEYS",
    "FIGURE_SEPARATOR",
    "HINT_SEPARATOR",
    "MIN_PATH_WIDTH",
    "FooterFigures",
    "FooterParts",
    "compact_count",
    "fit_footer",
    "middle_ellipsis",
    "short_path",
    "split_hints",
]
