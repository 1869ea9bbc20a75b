"""No thrashing above a fixed floor (issue 12): a threshold commit lands only when it buys
runway, otherwise nothing is committed and the floor that blocks it is named.

Six pending chapters (6,916 estimated tokens) at a 20k budget: ``maxTarget`` 16,000, the
runway 6,000 (half the 12,000-token band), so a threshold commit must leave at most 10,000.
The commit folds the chapters down to 410 estimated tokens; the host's own prompt, which
the engine only sees through the provider's count, decides whether that is enough.
"""

from __future__ import annotations

from pathlib import Path

from pifold_core.engine import Engine
from pifold_core.entries import Usage
from pifold_core.journal import Journal
from pifold_core.options import EngineOptions
from pifold_core.runway import budget_that_works, needed_after, runway_tokens
from pifold_core.tool.render import render_status
from pifold_tui.fold_bar.suffix import suffix_text
from tests.core.builders import SessionBuilder, small_options
from tests.core.engine_checks import assert_reopens_identically, pending_engine

BUDGET = 20_000


def _options(budget: int = BUDGET) -> EngineOptions:
    return small_options(budget=budget, min_fold_chars=2_000)


def _with_host_prompt(path: Path, host_tokens: int) -> Engine:
    """The pending chapters, measured by a provider that also counted ``host_tokens``."""
    engine, _ = pending_engine(path, 6, _options())
    request = engine.prepare_request()
    assert request.commit is None
    engine.report_usage(request.record.number, Usage(input_tokens=request.tokens + host_tokens))
    engine.append(SessionBuilder(prefix="next").user("go on"))
    return engine


def _commit_records(engine: Engine) -> int:
    engine._state.journal.sync()
    log = Journal(engine._state.journal.path, read_only=True)
    return sum(1 for record in log.read_all() if record.kind == "commit")


def test_the_rule_is_half_the_band_below_max_target() -> None:
    options = _options()
    assert runway_tokens(options) == 6_000
    assert needed_after(options) == 10_000
    assert budget_that_works(options, 10_000) == 20_000
    assert budget_that_works(options, 10_001) == 21_000


def test_a_commit_that_buys_runway_lands(tmp_path: Path) -> None:
    engine = _with_host_prompt(tmp_path, 9_200)
    assert engine.expected_tokens() >= engine.options.max_tokens
    request = engine.prepare_request()
    assert request.commit is not None and request.commit.cause == "threshold"
    assert engine.expected_tokens() <= needed_after(engine.options)
    assert engine.view.floor is None
    assert_reopens_identically(engine)


def test_a_commit_the_floor_keeps_high_does_not_land_and_names_the_floor(
    tmp_path: Path,
) -> None:
    engine = _with_host_prompt(tmp_path, 10_000)
    before = engine.expected_tokens()
    assert engine.options.max_tokens <= before < engine.options.budget
    request = engine.prepare_request()
    assert request.commit is None and engine.view.commit_count == 0
    assert _commit_records(engine) == 0  # taken back before anything was logged
    assert engine.expected_tokens() == before and engine.view.marks
    floor = engine.view.floor
    assert floor is not None
    assert floor.host_tokens == 10_000
    assert floor.expected_after > floor.needed_after == 10_000
    assert floor.budget_that_works == 21_000
    assert "host prompt 10,000" in floor.describe() and "21,000" in floor.describe()
    # Asked again at the same state, it stays blocked and still logs no commit.
    engine.append(SessionBuilder(prefix="again").user("still there?"))
    assert engine.prepare_request().commit is None and _commit_records(engine) == 0
    assert_reopens_identically(engine)


def test_the_budget_the_floor_names_lets_the_commit_land(tmp_path: Path) -> None:
    engine = _with_host_prompt(tmp_path, 10_000)
    engine.prepare_request()
    assert engine.view.floor is not None
    engine.apply_options(_options(engine.view.floor.budget_that_works))
    engine.append(SessionBuilder(prefix="wider").user("with more room"))
    request = engine.prepare_request()
    assert request.commit is not None and request.commit.cause == "threshold"
    assert engine.view.floor is None
    assert_reopens_identically(engine)


def test_a_request_past_the_budget_still_waits_for_overflow_recovery(tmp_path: Path) -> None:
    engine = _with_host_prompt(tmp_path, 13_200)
    assert engine.expected_tokens() >= engine.options.budget
    request = engine.prepare_request()
    # No runway, so no threshold commit even past the budget (it would free a little room
    # and fire again a request later); the floor is named and the host's overflow recovery
    # is the net.
    assert request.commit is None and engine.view.commit_count == 0
    assert _commit_records(engine) == 0
    assert engine.view.floor is not None and engine.view.floor.expected_after > needed_after(
        engine.options
    )
    recovery = engine.recover_from_overflow()
    assert recovery.commit.cause == "overflow" and recovery.fits
    assert engine.view.audit_counts.unattributed == 0
    assert_reopens_identically(engine)


def test_status_the_tool_and_the_bar_name_the_floor_that_blocks(tmp_path: Path) -> None:
    engine = _with_host_prompt(tmp_path, 10_000)
    engine.prepare_request()
    floor = engine.view.floor
    assert floor is not None
    status = engine.status()
    assert status.floor == floor
    text = render_status(status)
    assert "next commit: commit blocked by the floor" in text
    assert f"fresh tail {floor.fresh_tokens:,}" in text and "budget of 21,000" in text
    bar = suffix_text(engine.composition())
    assert "blocked by floor (host 10k" in bar and "21k budget works" in bar
    # Once the budget that works is taken and the commit lands, every surface clears.
    engine.apply_options(_options(floor.budget_that_works))
    engine.append(SessionBuilder(prefix="cleared").user("now"))
    assert engine.prepare_request().commit is not None
    assert engine.status().floor is None and "blocked" not in suffix_text(engine.composition())
    assert "blocked" not in render_status(engine.status())
