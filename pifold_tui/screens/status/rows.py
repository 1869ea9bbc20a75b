"""The figure rows of ``/fold-status`` in two layouts: a wide grid and a narrow stack.

The report adds its rows (a heading, or a label, a value, a share and what reduces it) to
:class:`FigureRows`, which lays them out for the width it is given:

- **wide** (:data:`WIDE_COLUMNS` cells or more): four columns, the action beside its figure;
- **narrow**: the label, the value and the share on one line, with the numbers aligned down
  the whole report and the longest labels shortened, and the action on the lines under it,
  indented and wrapped at words, so an 80-column terminal reads the report without a column
  squeezed to a dozen cells.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from pifold_tui.screens.status.figures import ReportStyles, figure_table, share

WIDE_COLUMNS = 110
"""Below this many cells the report stacks each action under its figure."""

ACTION_INDENT = 2
"""Cells an action is indented under its figure in the narrow layout."""

GAP = "  "
"""Between the label, the value and the share of a narrow row."""


@dataclass(frozen=True, slots=True)
class FigureRow:
    """One figure of the report, or a section heading (a row with only a label)."""

    label: str | Text
    """What the figure is (a heading is a bold label and nothing else)."""
    value: str | Text = ""
    """The exact figure."""
    part: str = ""
    """The share it is of something, where it is one."""
    action: str | Text = ""
    """What reduces it, or what it means."""
    short_label: str | None = None
    """The label in the narrow layout, where the full one is long."""
    is_heading: bool = False
    """Whether the row starts a section."""


def _text(content: str | Text, style: str = "") -> Text:
    return content.copy() if isinstance(content, Text) else Text(content, style=style)


class FigureRows:
    """The report's rows, in order, until :meth:`render` lays them out."""

    def __init__(self, muted: str = "dim") -> None:
        """Create an empty list of rows; ``muted`` is the style of plain-text actions."""
        self.rows: list[FigureRow] = []
        """Every row added, headings included."""
        self.muted = muted

    def add_heading(self, title: Text) -> None:
        """Start a section."""
        self.rows.append(FigureRow(title, is_heading=True))

    def add(
        self,
        label: str | Text,
        value: str | Text = "",
        part: str = "",
        action: str | Text = "",
        short_label: str | None = None,
    ) -> None:
        """One figure; a plain-text action is muted."""
        self.rows.append(FigureRow(label, value, part, action, short_label))

    def render(self, width: int | None) -> RenderableType:
        """The rows laid out for ``width`` cells (``None``: the wide layout)."""
        if width is None or width >= WIDE_COLUMNS:
            return self.wide()
        return self.narrow(width)

    def wide(self) -> Table:
        """Four columns: figure, value, share, action."""
        table = figure_table()
        for position, row in enumerate(self.rows):
            if row.is_heading:
                if position:
                    table.add_section()
                table.add_row(row.label)
                continue
            action = _text(row.action, self.muted)
            table.add_row(row.label, row.value, row.part, action)
        return table

    def narrow(self, width: int) -> Group:
        """Label, value and share on one line, the action wrapped under it."""
        figures = [row for row in self.rows if not row.is_heading]
        label_width = max((cell_len(_label(row).plain) for row in figures), default=0)
        value_width = max((cell_len(_text(row.value).plain) for row in figures), default=0)
        part_width = max((cell_len(row.part) for row in figures), default=0)
        lines: list[RenderableType] = []
        for row in self.rows:
            if row.is_heading:
                lines.append(_text(row.label))
                continue
            line = _label(row)
            line.align("left", label_width)
            value = _text(row.value)
            value.align("right", value_width)
            part = Text(row.part)
            part.align("right", part_width)
            line.append(GAP)
            line.append_text(value)
            line.append(GAP)
            line.append_text(part)
            line.rstrip()
            line.no_wrap = True
            line.overflow = "ellipsis"
            lines.append(line)
            action = _text(row.action, self.muted)
            if action.plain:
                indent = min(ACTION_INDENT, max(0, width - 1))
                lines.append(Padding(action, (0, 0, 0, indent)))
        return Group(*lines)


def _label(row: FigureRow) -> Text:
    if row.short_label is not None:
        style = row.label.style if isinstance(row.label, Text) else ""
        return Text(row.short_label, style=style)
    return _text(row.label)


def must_be_zero_row(
    table: FigureRows,
    styles: ReportStyles,
    label: str,
    count: int,
    whole: int,
    when_some: str,
    when_none: str,
) -> None:
    """A count that should stay at zero (unattributed rewrites, unexplained misses): in the
    warning colour with ``when_some`` when it is not, calm with ``when_none`` when it is."""
    style = styles.warning if count else styles.good
    table.add(
        Text(label, style=style if count else ""),
        Text(f"{count:,}", style=style),
        share(count, whole),
        Text(when_some if count else when_none, style=style if count else styles.muted),
    )


__all__ = ["ACTION_INDENT", "WIDE_COLUMNS", "FigureRow", "FigureRows", "must_be_zero_row"]
