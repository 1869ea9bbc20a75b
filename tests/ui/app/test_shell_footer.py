"""The footer's figures: usage summed per request, priced with the descriptor's table, and a
model without prices shown as ``$?`` rather than a made-up zero."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.providers.models import BUILT_IN
from pifold_core.entries import Usage
from pifold_tui.app.footer import Prices, UsageTotals, footer_text
from pifold_tui.app.session_setup import prices_of

SONNET = prices_of(BUILT_IN["claude-sonnet-4-5"])


def test_sonnet_prices_come_from_the_table() -> None:
    assert Prices(3.0, 15.0, 0.3, 3.75) == SONNET
    usage = Usage(input_tokens=1_000_000, output_tokens=100_000, cache_read_tokens=2_000_000)
    # $3 uncached + $1.50 output + $0.60 cache read.
    assert SONNET is not None and abs(SONNET.cost(usage) - 5.10) < 1e-9


def test_a_model_without_prices_has_no_cost() -> None:
    assert prices_of(BUILT_IN["local"]) is None
    assert prices_of(None) is None
    totals = UsageTotals()
    totals.add(Usage(input_tokens=500, output_tokens=20), None)
    line = footer_text("local", totals, False, Path("/srv/work"), "")
    assert line.plain == "local · ↑500 ↓20 (cache 0) · $? · /srv/work"


def test_the_footer_line_names_model_tokens_cost_and_directory(tmp_path: Path) -> None:
    totals = UsageTotals()
    totals.add(Usage(input_tokens=12_000, output_tokens=900, cache_read_tokens=40_000), SONNET)
    totals.add(Usage(input_tokens=1_000, output_tokens=1_200, cache_read_tokens=52_000), SONNET)
    assert totals.requests == 2
    assert totals.input_tokens == 105_000  # uncached and cached prompt tokens together
    line = footer_text("claude-sonnet-4-5", totals, True, tmp_path / "proj", "esc abort")
    expected_cost = (13_000 * 3.0 + 2_100 * 15.0 + 92_000 * 0.3) / 1_000_000
    assert line.plain.startswith(
        f"claude-sonnet-4-5 · ↑105.0k ↓2.1k (cache 92.0k) · ${expected_cost:,.2f} · "
    )
    assert line.plain.endswith("  esc abort")


HOME = Path("/home/ada")
LIVE_HINTS = "esc abort · ctrl+p commands · /help"
DEMO_HINTS = "f2 pause · ctrl+p commands · /fold-editor"


def _busy_totals() -> UsageTotals:
    totals = UsageTotals()
    usage = Usage(input_tokens=80_000, output_tokens=19_500, cache_read_tokens=1_000_000)
    totals.add(usage, SONNET)
    return totals


LIVE_LINES = {
    122: "claude-sonnet-4-5 · ↑1.08M ↓19.5k (cache 1.00M) · $0.83 · ~/code/clients/acme/pifold"
    "  esc abort · ctrl+p commands · /help",
    118: "claude-sonnet-4-5 · ↑1.08M ↓19.5k (cache 1.00M) · $0.83 · ~/code/clients/acme/pifold"
    "  esc abort · ctrl+p commands",
    98: "claude-sonnet-4-5 · ↑1.08M ↓19.5k · $0.83 · ~/…/clients/acme/pifold"
    "  esc abort · ctrl+p commands",
    78: "claude-sonnet-4-5 · $0.83 · ~/…/acme/pifold  esc abort · ctrl+p commands",
    58: "claude-sonnet-4-5 · $0.83  esc abort · ctrl+p commands",
    38: "claude-s…  esc abort · ctrl+p commands",
}
"""A live session's footer at each width (the footer's content is its width less 2)."""

DEMO_LINES = {
    118: "demo · a recorded Pi session · ↑1.08M ↓19.5k (cache 1.00M) · $0.83"
    " · compaction ~$2.10  f2 pause · ctrl+p commands",
    98: "demo · a recorded Pi session · $0.83 · compaction ~$2.10  f2 pause · ctrl+p commands",
    78: "demo · a recorded Pi session · $0.83 · compaction ~$2.10  ctrl+p commands",
    58: "demo · a recorded Pi session · $0.83  ctrl+p commands",
}
"""The demo's footer: its simulated bill, then what compaction would have cost (the demo's
point, so before F2), and no directory (the demo touches none), so at 120 columns the cache
reads fit."""


@pytest.mark.parametrize("width", list(DEMO_LINES))
def test_the_demo_footer_at_each_width(width: int) -> None:
    line = footer_text(
        "demo · a recorded Pi session",
        _busy_totals(),
        True,
        None,
        DEMO_HINTS,
        width,
        HOME,
        comparison="compaction ~$2.10",
    )
    assert line.plain == DEMO_LINES[width]


def test_a_comparison_needs_a_cost_to_follow() -> None:
    line = footer_text(
        "local", _busy_totals(), False, None, DEMO_HINTS, 118, HOME, comparison="compaction ~$1"
    )
    assert "compaction" not in line.plain and "$?" in line.plain


@given(st.integers(min_value=20, max_value=200))
def test_the_footer_never_drops_esc_or_ctrl_p_and_fits_when_it_can(width: int) -> None:
    cwd = HOME / "code" / "clients" / "acme" / "pifold"
    plain = footer_text("claude-sonnet-4-5", _busy_totals(), True, cwd, LIVE_HINTS, width, HOME)
    text = plain.plain
    assert text.endswith("esc abort · ctrl+p commands") or text.endswith("/help")
    essentials = len("…  esc abort · ctrl+p commands")
    if width >= essentials:
        assert len(text) <= width
    # A wider footer never shows fewer pieces.
    wider = footer_text("claude-sonnet-4-5", _busy_totals(), True, cwd, LIVE_HINTS, width + 1, HOME)
    assert len(wider.plain) >= len(text)
