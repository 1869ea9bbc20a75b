"""The bench's tables fit the terminal: exact figures when wide, compact ones when narrow."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from pifold_bench.report import ArmTable, compact

EXTRA = tuple(f"figure {number}" for number in range(6))
"""More columns, so that the wide layout cannot fit 80 columns (as the real tables cannot)."""


def _table(extra: tuple[str, ...] = EXTRA) -> ArmTable:
    arms = (
        "fold",
        "fold-no-cold",
        "fold-unbatched",
        "fold-immediate",
        "native",
        "none",
        "clip-only",
    )
    rows = tuple(
        (
            arm,
            (
                (f"{1_255_296 * (position + 1):,}", compact(1_255_296 * (position + 1))),
                (f"{137_735 + position:,}", compact(137_735 + position)),
                ("11 (#16)", "11 #16"),
                *((f"{position:,}", f"{position}") for _ in extra),
            ),
        )
        for position, arm in enumerate(arms)
    )
    return ArmTable("tokens", ("cache read", "fresh in", "over budget (first)", *extra), rows)


def _render(table: ArmTable, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(table.render(width))
    output = console.file.getvalue()  # type: ignore[attr-defined]
    return [line.rstrip() for line in output.splitlines()]


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0"), (9_999, "9,999"), (10_000, "10.0k"), (137_735, "137.7k"), (1_255_296, "1.26M")],
)
def test_compact_figures(value: int, text: str) -> None:
    assert compact(value) == text


def test_wide_terminal_gets_exact_figures_with_an_arm_a_row() -> None:
    lines = _render(_table(), 200)
    fold_rows = [line for line in lines if "fold-unbatched" in line]
    assert len(fold_rows) == 1
    assert "3,765,888" in fold_rows[0]
    assert "137,737" in fold_rows[0]
    assert not any("…" in line for line in lines)


def test_a_table_that_fits_stays_wide() -> None:
    lines = _render(_table(extra=()), 80)
    assert any("fold-unbatched" in line and "3,765,888" in line for line in lines)


def test_narrow_terminal_gets_an_arm_a_column_that_fits_80_columns() -> None:
    lines = _render(_table(), 80)
    assert max(len(line) for line in lines) <= 80
    assert not any("…" in line for line in lines), "\n".join(lines)
    # With seven arms the label may wrap onto a second line ("cache" / "read"), never be cut.
    cache_read = next(line for line in lines if line.lstrip().startswith("cache"))
    figures = cache_read.split()[-7:]
    assert figures == ["1.26M", "2.51M", "3.77M", "5.02M", "6.28M", "7.53M", "8.79M"]
    # The hyphenated arm names break after their hyphen rather than being cut.
    assert any("unbatched" in line and "immediate" in line for line in lines)
