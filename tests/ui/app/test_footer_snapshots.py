"""SVG snapshots of the demo's footer at 120 columns, dark and light
(``snapshots/test_footer_snapshots/``): the model, the tokens with the cache reads, the
simulated cost and what compaction would have cost, then the keys (issue 19: the cache story
was invisible, ``(cache 0) · $?``)."""

from __future__ import annotations

import pytest
from syrupy.assertion import SnapshotAssertion
from textual.app import App, ComposeResult

from pifold_agent.pricing.prices import load_price_book
from pifold_core.entries import Usage
from pifold_tui.app.demo_bill import footer_prices
from pifold_tui.app.demo_controls import DEMO_HINTS
from pifold_tui.app.footer import DEMO_MODEL, SessionFooter
from tests.ui.harness import THEMES

SNAPSHOT_SIZE = (120, 3)
SONNET = footer_prices(load_price_book().lookup("claude-sonnet-4-5")[0])


class FooterHost(App[None]):
    """The demo's footer alone at the bottom of the screen, with fixed figures."""

    CSS = "Screen { align-vertical: bottom; }"

    def __init__(self, theme: str) -> None:
        super().__init__()
        self.theme_name = theme

    def compose(self) -> ComposeResult:
        footer = SessionFooter(DEMO_MODEL, None, SONNET, DEMO_HINTS)
        footer.count(Usage(60_000, 4_000, 1_420_000, 20_000), "compaction ~$3.15")
        yield footer

    def on_mount(self) -> None:
        self.theme = self.theme_name


@pytest.mark.parametrize("theme", sorted(THEMES))
async def test_the_demo_footer(theme: str, svg_snapshot: SnapshotAssertion) -> None:
    app = FooterHost(THEMES[theme])
    async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
        await pilot.pause()
        line = str(app.query_one(SessionFooter).render())
        assert "↑1.50M ↓4.0k (cache 1.42M) · $0.74 · compaction ~$3.15  f2 pause" in line
        assert app.export_screenshot(title="footer") == svg_snapshot
