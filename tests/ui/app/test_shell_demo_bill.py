"""The demo shows the point: its footer reads the cache and the cost as the session plays,
and what native compaction at the same budget would have cost (issue 19).

The unpaced demo plays until its first commit has landed and a few requests more (the
conversation and the prompt are the shell tests' stand-ins: the footer and ``/fold-status``
are the app's own); then every figure is checked against one source:
the footer's tokens, cache reads and cost are the usage the session recorded (the simulated
bill's), the engine measured the same prompt, the comparison is the native arm's bill, and
``/fold-status`` says where both come from."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pifold_agent.loop.events import CommitDone, MessageEnd
from pifold_tui.app.app import PifoldApp
from pifold_tui.app.demo import DEMO_BUDGET
from pifold_tui.app.footer import SessionFooter
from pifold_tui.screens.status import FoldStatusScreen
from tests.ui.app.harness import assert_session_consistent, engine_of, opened, run_to_end
from tests.ui.app.shell_fixtures import StubPrompt, demo_loader, stub_app

REQUESTS_AFTER_THE_COMMIT = 1
"""Replies played after the first commit before the figures are read."""


def demo_app(cwd: Path) -> PifoldApp:
    return stub_app(demo_loader(cwd), cwd)


async def test_the_footer_shows_cache_reads_cost_and_what_compaction_would_cost(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        watch = await opened(app, pilot)
        commit = await watch.until(lambda event: isinstance(event, CommitDone))
        start = watch.events.index(commit)
        for _ in range(REQUESTS_AFTER_THE_COMMIT):
            reply = await watch.until(
                lambda event: isinstance(event, MessageEnd) and event.entry.kind == "assistant",
                start,
            )
            start = watch.events.index(reply) + 1
        assert app.gate is not None
        app.gate.toggle()  # hold the stream while the figures are read
        await pilot.pause()
        session = app.session
        assert session is not None and session.bill is not None
        bill = session.bill.bill
        footer = app.query_one(SessionFooter)
        usages = [
            entry.usage
            for entry in session.recorder.recorded()
            if entry.kind == "assistant" and entry.usage is not None
        ]
        totals = footer.totals
        assert totals.requests == len(usages) == bill.folded.requests
        assert totals.cache_read_tokens == bill.folded.cache_read > 0
        assert totals.input_tokens == sum(usage.prompt_tokens for usage in usages)
        assert abs(totals.cost - bill.folded.cost) < 1e-9 and totals.cost > 0
        measured = engine_of(app)._state.meter.last
        assert measured is not None and measured.tokens == usages[-1].prompt_tokens
        assert bill.compaction.requests == bill.folded.requests
        assert footer.comparison == f"compaction ~${bill.compaction.cost:,.2f}"
        line = str(footer.render())
        assert f"${totals.cost:,.2f} · compaction ~$" in line
        assert "(cache " in line and "(cache 0)" not in line
        assert str(tmp_path) not in line  # the demo touches no directory: none is shown

        app.query_one(StubPrompt).type_line("/fold-status")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FoldStatusScreen)
        note = str(screen.query_one("#status-note", Static).render())
        assert note.startswith("Demo bill, simulated with claude-sonnet-4-5 prices")
        assert f"${bill.folded.cost:,.2f} for {bill.folded.requests} requests" in note
        assert f"same {DEMO_BUDGET:,}-token budget" in note
        assert f"~${bill.compaction.cost:,.2f}" in note
        await pilot.press("escape")
        app.gate.toggle()
        assert app.bridge is not None and app.bridge.abort()  # Esc would only pause the demo
        await run_to_end(app, pilot)
        assert_session_consistent(engine_of(app))
