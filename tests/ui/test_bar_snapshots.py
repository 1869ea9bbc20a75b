"""SVG snapshots of the fold bar on dark and light themes (stored in ``snapshots/``)."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion

from palettes import MAP_NAMES, PaletteSetting
from tests.ui.cases import BLOCKED, FILL_CASES, SHAPE_CASES, STATE_CASES
from tests.ui.harness import THEMES, BarHarness, screenshot

theme_parameter = pytest.mark.parametrize("theme", sorted(THEMES))


@theme_parameter
class TestFill:
    @pytest.mark.parametrize("case", list(FILL_CASES))
    def test_fill(self, theme: str, case: str, svg_snapshot: SnapshotAssertion) -> None:
        assert screenshot(BarHarness(FILL_CASES[case], THEMES[theme])) == svg_snapshot


@theme_parameter
class TestShape:
    @pytest.mark.parametrize("case", list(SHAPE_CASES))
    def test_shape(self, theme: str, case: str, svg_snapshot: SnapshotAssertion) -> None:
        assert screenshot(BarHarness(SHAPE_CASES[case], THEMES[theme])) == svg_snapshot


@theme_parameter
class TestMaps:
    @pytest.mark.parametrize("map_name", MAP_NAMES)
    def test_map(self, theme: str, map_name: str, svg_snapshot: SnapshotAssertion) -> None:
        app = BarHarness(FILL_CASES["fill_100"], THEMES[theme], PaletteSetting(map_name))
        assert screenshot(app) == svg_snapshot

    def test_reversed_slice(self, theme: str, svg_snapshot: SnapshotAssertion) -> None:
        setting = PaletteSetting("viridis", start=0.85, end=0.15)
        assert screenshot(BarHarness(FILL_CASES["fill_100"], THEMES[theme], setting)) == (
            svg_snapshot
        )


@theme_parameter
class TestStates:
    @pytest.mark.parametrize("case", list(STATE_CASES))
    def test_state(self, theme: str, case: str, svg_snapshot: SnapshotAssertion) -> None:
        assert screenshot(BarHarness(STATE_CASES[case], THEMES[theme])) == svg_snapshot


@theme_parameter
class TestThemeColours:
    def test_without_truecolor(self, theme: str, svg_snapshot: SnapshotAssertion) -> None:
        app = BarHarness(FILL_CASES["fill_80"], THEMES[theme], truecolor=False)
        assert screenshot(app) == svg_snapshot


@theme_parameter
class TestNarrow:
    """The row at 80, 60 and 40 columns: the suffix shortened in its stated order."""

    @pytest.mark.parametrize("width", [80, 60, 40])
    @pytest.mark.parametrize("case", ["fill_34", "blocked"])
    def test_narrow(
        self, theme: str, case: str, width: int, svg_snapshot: SnapshotAssertion
    ) -> None:
        composition = BLOCKED if case == "blocked" else FILL_CASES[case]
        app = BarHarness(composition, THEMES[theme])
        assert screenshot(app, (width, 1)) == svg_snapshot
