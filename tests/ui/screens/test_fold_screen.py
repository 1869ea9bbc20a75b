"""``/fold`` on a real replayed session: preview, confirm or cancel, what landed, refusals."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.widgets import Static

from pifold_core.engine import Engine
from pifold_tui import FoldBar
from pifold_tui.inspect import InspectApp
from pifold_tui.screens.fold import FoldPreview, FoldScreen, preview_report
from pifold_tui.screens.status import FoldStatusScreen, ReportStyles
from tests.core.builders import small_options
from tests.core.engine_checks import assert_lossless, pending_engine
from tests.ui.screens.conftest import check_clean, looked_only, report_value, shown_text

SIZE = (120, 50)


def report_text(app: InspectApp) -> str:
    return shown_text(app.screen.query_one("#fold-report", Static))


def message_text(app: InspectApp) -> str:
    return shown_text(app.screen.query_one("#fold-message", Static))


async def test_preview_then_confirm_lands_the_previewed_commit(replayed_engine: Engine) -> None:
    engine = replayed_engine
    preview = engine.preview_commit("command")
    assert not preview.refused and preview.landing
    entries, commits = len(engine.view.transcript), engine.view.commit_count
    bar_before = engine.composition()
    app = InspectApp(engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, FoldScreen)
        text = report_text(app)
        for mark in preview.landing:
            assert mark.id in text
        for fold in preview.folds:
            assert fold.handle in text
        assert f"~{preview.freed_tokens:,}" in text
        assert f"~{preview.uncached_tokens:,}" in text
        assert report_value(text, "first changed message") == f"{preview.first_changed}"
        assert report_value(text, "tokens freed") == f"~{preview.freed_tokens:,}"
        assert "Enter or y commits" in text
        # Previewing moved nothing.
        assert engine.view.commit_count == commits
        await pilot.press("enter")
        await pilot.pause()
        landed = report_text(app)
        assert f"Commit {commits + 1} landed (command)" in landed
        assert engine.view.commit_count == commits + 1
        built = [
            fold.handle for fold in engine.view.forest.folds.values() if fold.commit == commits + 1
        ]
        assert sorted(built) == sorted(fold.handle for fold in preview.folds)
        assert engine.view.projection.tokens == preview.tokens_after
        # The bar on this screen repainted: the marks are folds now. (The commit may
        # consolidate older folds, so the count of folds shown changes but need not grow.)
        bar = app.screen.query_one(FoldBar).composition
        assert bar is not None and bar.counts.marks == 0 < bar_before.counts.marks
        assert bar == engine.composition()
        counts, counts_before = bar.counts, bar_before.counts
        assert (counts.consolidated, counts.span, counts.tool) != (
            counts_before.consolidated,
            counts_before.span,
            counts_before.tool,
        )
        # A second confirmation does nothing; Escape goes back to a refreshed status.
        await pilot.press("y")
        await pilot.pause()
        assert engine.view.commit_count == commits + 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FoldStatusScreen)
        home_bar = app.screen.query_one(FoldBar).composition
        assert home_bar is not None and home_bar.counts.marks == 0
    # The screens appended no entry; the rewrite the commit declared is attributed.
    assert len(engine.view.transcript) == entries
    request = engine.prepare_request()
    assert request.record.classification != "append"
    check_clean(engine)
    assert_lossless(engine)


async def test_y_confirms_too(replayed_engine: Engine) -> None:
    commits = replayed_engine.view.commit_count
    app = InspectApp(replayed_engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f", "y")
        await pilot.pause()
        assert replayed_engine.view.commit_count == commits + 1
    check_clean(replayed_engine)


async def test_escape_cancels_and_nothing_moves(replayed_engine: Engine) -> None:
    before = looked_only(replayed_engine)
    results: list[object] = []
    app = InspectApp(replayed_engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.push_screen(FoldScreen(replayed_engine), results.append)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FoldStatusScreen)
    assert results == [None]
    check_clean(replayed_engine, before)


async def test_nothing_staged_is_a_refusal_that_says_why(replayed_engine: Engine) -> None:
    engine = replayed_engine
    engine.commit_now()  # every mark lands: nothing is left to commit
    assert engine.preview_commit("command").refused
    before = looked_only(engine)
    app = InspectApp(engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await pilot.pause()
        assert "Nothing to commit." in report_text(app)
        assert "nothing staged" in report_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert "Refused: nothing staged" in message_text(app)
    check_clean(engine, before)


async def test_folding_stopped_is_a_refusal(replayed_engine: Engine) -> None:
    engine = replayed_engine
    engine._state.stop_folding("commit could not be saved: No space left on device")
    before = looked_only(engine)
    app = InspectApp(engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f", "enter")
        await pilot.pause()
        assert "folding stopped: commit could not be saved" in report_text(app)
        assert "Refused: folding stopped" in message_text(app)
    check_clean(engine, before)


async def test_read_only_refuses_the_commit(read_only_engine: Engine) -> None:
    engine = read_only_engine
    assert not engine.preview_commit("command").refused
    before = looked_only(engine)
    app = InspectApp(engine)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f")
        await pilot.pause()
        assert "Enter or y commits" in report_text(app)  # the preview still shows
        await pilot.press("enter")
        await pilot.pause()
        assert "Refused: this session is open read-only" in message_text(app)
        assert isinstance(app.screen, FoldScreen)
    check_clean(engine, before)


def test_the_band_stop_is_drawn_between_the_marks_it_separates(tmp_path: Path) -> None:
    """With a band target above what the marks leave, the band's own commit lands only the
    stalest marks: the preview draws its stop right after the last of them."""
    engine, _ = pending_engine(tmp_path, count=6)
    tokens = engine.view.projection.tokens
    engine.apply_options(
        small_options(budget=int(tokens / 0.6), min_fold_chars=2_000, min_target=0.5)
    )
    preview = FoldPreview(
        command=engine.preview_commit("command"),
        band=engine.preview_commit("threshold"),
        budget=engine.options.budget,
        messages=len(engine.view.projection.items),
    )
    landed_by_band = {mark.id for mark in preview.band.landing}
    assert 0 < len(landed_by_band) < len(preview.command.landing)
    console = Console(width=200, file=io.StringIO(), record=True, color_system=None)
    console.print(preview_report(preview, ReportStyles()))
    lines = console.export_text().splitlines()
    stop = next(index for index, line in enumerate(lines) if "the band stops here" in line)
    # A mark's id is a whole word of its row ("mark-1" must not match "mark-10").
    above = {word for line in lines[:stop] for word in line.split() if word.startswith("mark-")}
    below = {word for line in lines[stop:] for word in line.split() if word.startswith("mark-")}
    assert above == landed_by_band
    assert below and not below & landed_by_band
    assert f"aims for {preview.band.target:,} tokens" in lines[stop]
    engine.close()
