"""One figure, one definition: the fold screens and the bar agree (issue 19, figures).

Each test reads one figure from two surfaces over the same replayed session and checks they
show the same number under the same name.
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console, RenderableType

from pifold_agent.loop.window import commit_event
from pifold_agent.providers.models import BUILT_IN
from pifold_core.composition import Reading
from pifold_core.engine import Engine
from pifold_tui.app.conversation.render import commit_notice
from pifold_tui.app.slash import model_lines
from pifold_tui.fold_bar.layout import round_half_up
from pifold_tui.fold_bar.suffix import suffix_text
from pifold_tui.screens.fold import FoldPreview, preview_report
from pifold_tui.screens.status import ReportStyles
from pifold_tui.screens.status.figures import AIM_LABEL, EXPECTED_LABEL, aim_words
from pifold_tui.screens.status.report import StatusFigures, status_report
from tests.core.builders import small_options
from tests.core.engine_checks import (
    assert_clean_audit,
    assert_reopens_identically,
    pending_engine,
)
from tests.ui.screens.conftest import check_clean, looked_only, report_value


def plain(renderable: RenderableType, width: int = 160) -> str:
    """What a report reads as, without colour."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def fold_preview(engine: Engine) -> FoldPreview:
    return FoldPreview(
        command=engine.preview_commit("command"),
        band=engine.preview_commit("threshold"),
        budget=engine.options.budget,
        messages=len(engine.view.projection.items),
    )


def test_the_band_aim_and_the_window_are_one_figure_on_both_screens(
    read_only_engine: Engine,
) -> None:
    """``/fold-status``'s minTarget row and ``/fold``'s band stop name the same tokens."""
    engine = read_only_engine
    before = looked_only(engine)
    status = plain(status_report(StatusFigures.read(engine), ReportStyles()))
    fold = plain(preview_report(fold_preview(engine), ReportStyles()))
    aim = engine.options.min_tokens
    assert report_value(status, AIM_LABEL) == f"{aim:,}" == report_value(fold, AIM_LABEL)
    # The band's stop (a rule between the marks, or the sentence after them) says it too,
    # and no other "aims for" figure appears on either screen.
    assert aim_words(aim) in fold
    for text in (status, fold):
        for line in text.splitlines():
            if "aims for" in line and "(minTarget)" in line and "tokens" in line:
                assert f"{aim:,} tokens" in line
    # The window before the commit is the trigger's figure on both screens.
    expected = f"~{engine.expected_tokens():,}"
    assert report_value(status, EXPECTED_LABEL) == expected == report_value(fold, EXPECTED_LABEL)
    # What the band commit frees: the same on both, and the difference of the two figures.
    band = engine.preview_commit("threshold")
    assert band.expected_before == engine.expected_tokens()
    assert f"~{band.expected_before:,} → ~{band.expected_after:,}" in status
    check_clean(engine, before)


def test_the_preview_aim_is_the_status_min_target_whatever_the_calibration(
    read_only_engine: Engine,
) -> None:
    """The committer's own target sits on the uncalibrated scale; people see minTarget."""
    engine = read_only_engine
    band = engine.preview_commit("threshold")
    assert band.aim_tokens == engine.status().min_tokens
    assert band.target is not None and band.target == engine._state.meter.estimate_for(
        band.aim_tokens
    )
    assert engine.preview_commit("command").aim_tokens is None


def test_after_a_commit_the_bar_reads_what_the_status_screen_expects(
    read_only_engine: Engine,
) -> None:
    """The replayed session ends after a commit the trace never measured: the bar shows the
    engine's estimate of the window, marked as such, the status screen's next request."""
    engine = read_only_engine
    composition = engine.composition()
    assert composition.reading is Reading.ESTIMATED_AFTER_COMMIT
    expected = engine.expected_tokens()
    assert composition.fill_tokens == expected
    percent = round_half_up(100 * expected / engine.options.budget)
    assert suffix_text(composition).startswith(f"~{percent}% estimated after commit · ")
    status = plain(status_report(StatusFigures.read(engine), ReportStyles()))
    assert (
        report_value(status, "occupancy shown")
        == f"~{expected:,}"
        == report_value(status, EXPECTED_LABEL)
    )
    assert "estimated after commit" in status


def test_a_commit_notice_counts_folds_as_the_bar_does(tmp_path: Path) -> None:
    """A commit that consolidates folds it built at once: its notice's ``N Folds`` is the
    bar's, and the folds it built are named apart as built."""
    engine, _ = pending_engine(
        tmp_path, count=8, options=small_options(budget=200_000, min_fold_chars=2_000)
    )
    outcome = engine.commit_now()
    event = commit_event(outcome)
    shown = engine.composition().counts.folds
    assert event.consolidated > 0 and event.folds > shown  # built is not what the bar counts
    assert event.shown == shown == engine.status().counts.folds
    notice = commit_notice(event)
    assert f" · {shown} Folds ({event.folds} built, {event.consolidated} consolidated" in notice
    assert f" · {shown} Folds" in suffix_text(engine.composition())
    assert_clean_audit(engine)
    assert_reopens_identically(engine)


def test_model_names_the_window_and_the_budgets_as_the_status_screen_does(
    read_only_engine: Engine,
) -> None:
    """``/model`` said ``local 128,000 tokens`` beside a 100,000 budget: each figure is
    named now, and the session's budget is ``/fold-status``'s."""
    local = BUILT_IN["local"]
    budget = read_only_engine.options.budget
    lines = model_lines([local], "local", budget)
    row = next(line for line in lines if line.startswith("→ local"))
    assert row.split()[2:4] == [f"{local.context_window:,}", f"{local.serving_budget:,}"]
    assert "window" in lines[0] and "serving budget" in lines[0]
    page = "\n".join(lines)
    assert f"This session's serving budget: {budget:,} tokens (providerInputBudget)" in page
    status = plain(status_report(StatusFigures.read(read_only_engine), ReportStyles()))
    assert report_value(status, "serving budget") == f"{budget:,}"


def test_model_says_where_a_local_servers_budget_came_from() -> None:
    origin = (
        "budget 24,576 tokens: 32,768 from the server (llama.cpp /props n_ctx), less 8,192 "
        "for the answer"
    )
    lines = model_lines([BUILT_IN["local"]], "qwen", 24_576, origin)
    assert lines[-4:-2] == [
        "Where it came from: budget 24,576 tokens: 32,768 from the server (llama.cpp /props",
        "n_ctx), less 8,192 for the answer.",
    ]


def test_the_fixed_prefix_and_its_floor_agree_on_every_page(tmp_path: Path) -> None:
    """The system prompt and tools (issue 22): one figure in the bar, ``/fold-status`` and
    ``/model``, and the floor they set named by ``/fold-status`` and ``/model`` alike."""
    from pifold_agent.loop.prefix_floor import prefix_lines
    from tests.core.engine_checks import pending_engine

    engine, _ = pending_engine(tmp_path, 1, small_options(budget=6_000, min_fold_chars=2_000))
    engine.set_host_prefix(2_848)
    floor = engine.status().prefix_floor
    assert floor is not None
    assert " · prefix 2.8k · " in suffix_text(engine.composition())
    status = plain(status_report(StatusFigures.read(engine), ReportStyles()))
    assert report_value(status, "Fixed prefix") == "~2,848"
    assert " ".join(floor.describe().split()) in " ".join(status.split())
    page = " ".join(
        " ".join(
            model_lines([BUILT_IN["local"]], "local", 6_000, None, prefix_lines(engine))
        ).split()
    )
    assert "Fixed prefix: ~2,848 tokens of every request" in page
    assert f"Floor: {floor.describe()}." in page
    engine.close()
