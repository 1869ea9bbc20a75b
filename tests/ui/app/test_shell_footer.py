"""The footer's figures: usage summed per request, priced with the descriptor's table, and a
model without prices shown as ``$?`` rather than a made-up zero."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.providers.models import BUILT_IN
from pifold_core.entries import Usage
from pifold_tui.app.footer import Prices, UsageTotals, compact_count, footer_text, short_path
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


def test_paths_under_home_read_with_a_tilde_and_long_ones_are_cut_from_the_left() -> None:
    home = Path("/home/ada")
    assert short_path(home / "code" / "pifold", home) == "~/code/pifold"
    assert short_path(home, home) == "~"
    cut = short_path(Path("/srv") / ("x" * 60) / "project", home, width=20)
    assert len(cut) == 20 and cut.startswith("…") and cut.endswith("/project")


@given(st.integers(min_value=0, max_value=10**11))
def test_compact_counts_are_short_and_keep_the_order_of_magnitude(tokens: int) -> None:
    text = compact_count(tokens)
    assert len(text) <= 7
    if tokens < 1_000:
        assert text == str(tokens)
        return
    scale = {"k": 1_000, "M": 1_000_000, "B": 1_000_000_000}[text[-1]]
    # The shown figure is the count to the shown precision: half of the last digit.
    digits = len(text[:-1].split(".")[1])
    assert abs(float(text[:-1]) * scale - tokens) <= scale * 0.5 * 10**-digits + 1e-6 * scale
    assert float(text[:-1]) < 1_000
