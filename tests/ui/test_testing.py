"""``pifold_tui.testing``: a host's snapshot of the bar does not depend on the terminal."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from pifold_core.composition import Category, Composition, FoldCounts
from pifold_tui.testing import fold_bar_svg, fold_bar_text
from tests.ui.cases import FILL_CASES, STATE_CASES
from tests.ui.harness import BarHarness, screenshot

HOST_COMPOSITION = Composition(
    budget=200_000,
    fill_tokens=68_000,
    max_target=0.8,
    min_target=0.2,
    masses={Category.SPAN: 30_000, Category.RAW: 38_000},
    counts=FoldCounts(span=3),
)
"""The composition the documented ten-line test builds, with no engine."""

TERMINALS: dict[str, dict[str, str | None]] = {
    "truecolor": {"COLORTERM": "truecolor", "NO_COLOR": None},
    "256 colours": {"COLORTERM": None, "NO_COLOR": None, "TERM": "xterm-256color"},
    "no colorterm": {"COLORTERM": None, "NO_COLOR": None},
    "no color": {"COLORTERM": "truecolor", "NO_COLOR": "1"},
    "dumb": {"COLORTERM": None, "NO_COLOR": None, "TERM": "dumb"},
}
"""Environments a user's tests may run in: a desktop terminal, CI, ``NO_COLOR`` users."""


def _enter(monkeypatch: pytest.MonkeyPatch, terminal: dict[str, str | None]) -> None:
    for name, value in terminal.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)


class TestSnapshotHelper:
    def test_the_documented_test_is_one_snapshot_in_every_terminal(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        screenshots = set()
        for terminal in TERMINALS.values():
            _enter(monkeypatch, terminal)
            screenshots.add(fold_bar_svg(HOST_COMPOSITION))
        assert len(screenshots) == 1

    def test_it_draws_the_palette_the_project_snapshots_show(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        _enter(monkeypatch, TERMINALS["no colorterm"])
        case = FILL_CASES["fill_34"]
        expected = screenshot(BarHarness(case, "textual-light"), (128, 1))
        assert fold_bar_svg(case, width=128, theme="textual-light") == expected

    def test_theme_colours_on_request(self, monkeypatch: pytest.MonkeyPatch) -> None:
        _enter(monkeypatch, TERMINALS["truecolor"])
        case = FILL_CASES["fill_80"]
        expected = screenshot(BarHarness(case, "textual-dark", truecolor=False), (128, 1))
        assert fold_bar_svg(case, width=128, truecolor=False) == expected

    def test_a_snapshot_library_takes_it(self, svg_snapshot: SnapshotAssertion) -> None:
        assert fold_bar_svg(HOST_COMPOSITION) == svg_snapshot


class TestTextHelper:
    def test_the_bar_as_text(self) -> None:
        text = fold_bar_text(HOST_COMPOSITION, width=90)
        assert text.endswith(" 34% · commit at 80% · 3 Folds (3 Span)")
        assert text.startswith("▌" * 7 + "┊")
        assert len(text) == 40 + len(" 34% · commit at 80% · 3 Folds (3 Span)")

    def test_before_any_measurement(self) -> None:
        text = fold_bar_text(STATE_CASES["not_measured"], width=90)
        assert "not measured yet · commit at 80% · 0 Folds" in text

    @pytest.mark.parametrize(
        ("width", "suffix"),
        [
            (100, " 34% · commit at 80% · 7 Folds (2C 3S 2T 4M 1P)"),
            (80, " 34% · commit at 80% · 7 Folds"),
            (60, " 34% · commit at 80%"),
        ],
    )
    def test_a_narrow_terminal_shortens_the_suffix_never_cuts_it(
        self, width: int, suffix: str
    ) -> None:
        assert fold_bar_text(FILL_CASES["fill_34"], width=width)[40:] == suffix
