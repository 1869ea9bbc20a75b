"""A footer alone in a bare app, over a session kept in memory: what the footer's tests and
``benchmarks/bench_footer.py`` mount."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import App, ComposeResult

from pifold_agent.loop.recorder import SessionRecorder
from pifold_tui.app.footer import BillNote, Prices, SessionFooter


@dataclass
class Shown:
    """The session as the footer reads it (the app's ``AppSession`` has more)."""

    recorder: SessionRecorder
    demo: bool = False
    cwd: Path = Path("/w")
    prices: Prices | None = None
    model: str = "claude-sonnet-4-5"
    bill: BillNote | None = None


class FooterApp(App[None]):
    """A bare app holding the footer alone."""

    def compose(self) -> ComposeResult:
        yield SessionFooter("claude-sonnet-4-5", Path("/w"), None)


__all__ = ["FooterApp", "Shown"]
