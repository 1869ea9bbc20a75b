"""Cold-cache commits (issue 12): a request that finds the cache expired lands standing marks.

Each session is checked for zero unattributed rewrites, lossless folds and an identical
reopen; the request's time and the lifetime are logged, so a reopened engine decides alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_core import checkpoint
from pifold_core.commit_policy import cold_point_tokens
from pifold_core.engine import Engine, EngineError
from pifold_core.marks import Mark
from pifold_core.runway import COLD_KEEP_SHARE, cache_is_cold, cold_commit_marks
from tests.core.builders import CharCounter, SessionBuilder, small_options
from tests.core.engine_checks import (
    assert_reopens_identically,
    pending_engine,
    reopen,
    set_checkpoint_aside,
    unchanged,
)

LIFETIME_S = 300
START_MS = 1_800_000_000_000
BUDGET = 12_000
"""Six pending chapters fill about 58 % of it: past the cold point, short of maxTarget."""


def _engine(path: Path, cold: bool = True) -> Engine:
    engine, _ = pending_engine(path, 6, small_options(budget=BUDGET, min_fold_chars=2_000))
    engine._policy.cold_cache_commits = cold
    assert engine._policy.cold_commit_share * BUDGET <= engine.expected_tokens()
    assert engine.expected_tokens() < engine.options.max_tokens
    # A first timed request: the clock the next one is measured against.
    assert engine.prepare_request(START_MS, LIFETIME_S).commit is None
    return engine


def _next_turn(engine: Engine, prefix: str) -> None:
    """A user message and nothing else: the next request carries no new fold material."""
    session = SessionBuilder(prefix=prefix)
    engine.append(session.user("and now?"))


def test_a_request_after_the_lifetime_commits_standing_marks(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    pending = set(engine.view.marks)
    before = engine.expected_tokens()
    _next_turn(engine, "late")
    request = engine.prepare_request(START_MS + (LIFETIME_S + 1) * 1_000, LIFETIME_S)
    assert request.commit is not None and request.commit.cause == "cold-cache"
    assert set(request.commit.applied_marks) <= pending and request.commit.applied_marks
    assert engine.expected_tokens() < before
    assert engine._state.last_commit is not None and engine._state.last_commit.cause == "cold-cache"
    assert request.record.classification != "unattributed"
    assert_reopens_identically(engine)


def test_a_request_within_the_lifetime_does_not_commit(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    _next_turn(engine, "warm")
    request = engine.prepare_request(START_MS + LIFETIME_S * 1_000, LIFETIME_S)
    assert request.commit is None and engine.view.commit_count == 0
    assert_reopens_identically(engine)


def test_without_a_clock_or_a_lifetime_the_engine_never_guesses_an_expiry(
    tmp_path: Path,
) -> None:
    engine = _engine(tmp_path)
    _next_turn(engine, "noclock")
    assert engine.prepare_request(None, LIFETIME_S).commit is None
    assert engine.prepare_request(START_MS + 10**9, None).commit is None
    assert engine.view.commit_count == 0
    assert not cache_is_cold(None, START_MS, LIFETIME_S)


def test_the_flag_turns_cold_commits_off(tmp_path: Path) -> None:
    engine = _engine(tmp_path, cold=False)
    _next_turn(engine, "off")
    request = engine.prepare_request(START_MS + 3_600_000, LIFETIME_S)
    assert request.commit is None and engine.view.commit_count == 0


def test_below_the_cold_point_a_cold_cache_commits_nothing(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    engine._policy.cold_commit_share = 0.9  # above the occupancy: too early to give detail up
    _next_turn(engine, "early")
    request = engine.prepare_request(START_MS + 3_600_000, LIFETIME_S)
    assert request.commit is None and engine.view.commit_count == 0


def test_the_logged_clock_survives_a_reopen(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    reopened = reopen(engine)
    try:
        assert reopened._state.last_request_ms == START_MS
        _next_turn(reopened, "after")
        request = reopened.prepare_request(START_MS + (LIFETIME_S + 1) * 1_000, LIFETIME_S)
        assert request.commit is not None and request.commit.cause == "cold-cache"
        assert_reopens_identically(reopened)
    finally:
        reopened.close()


@pytest.mark.parametrize(
    ("now_ms", "lifetime_s", "named"),
    [
        ("soon", LIFETIME_S, "now_ms"),
        (1.5, LIFETIME_S, "now_ms"),
        (True, LIFETIME_S, "now_ms"),
        (-1, LIFETIME_S, "now_ms"),
        (START_MS, 0, "cache_lifetime_s"),
        (START_MS, "300", "cache_lifetime_s"),
    ],
)
def test_a_bad_clock_is_refused_and_changes_nothing(
    tmp_path: Path, now_ms: object, lifetime_s: object, named: str
) -> None:
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    engine.append(SessionBuilder().user("hello"))
    with unchanged(engine), pytest.raises(EngineError, match=named):
        engine.prepare_request(now_ms, lifetime_s)  # type: ignore[arg-type]


def _eligible_marks(engine: Engine) -> set[str]:
    """Standing marks a commit could land now (before the fresh tail; nothing is pinned)."""
    assert not engine.view.pinned
    fresh = engine.view.transcript.fresh_start
    return {mark.id for mark in engine.view.marks.values() if mark.end <= fresh}


def test_a_cold_commit_lands_the_stalest_marks_down_to_the_cold_point_below_min_target(
    tmp_path: Path,
) -> None:
    # Six chapters at this budget sit under minTarget: a commit down to the band's floor
    # would land nothing; the cold-cache commit lands marks, stalest first, down to the cold
    # point, and never folds the window under the keep.
    budget = 60_000
    engine, _ = pending_engine(tmp_path, 6, small_options(budget=budget, min_fold_chars=2_000))
    assert (
        cold_point_tokens(engine._state, engine._policy.cold_commit_share)
        < engine.expected_tokens()
        < engine.options.min_tokens
    )
    engine.prepare_request(START_MS, LIFETIME_S)
    eligible = _eligible_marks(engine)
    in_order = sorted(
        (engine.view.marks[mark_id] for mark_id in eligible), key=lambda m: (m.start, -m.end, m.id)
    )
    choice = engine.view.cold_commit_choice()
    assert choice and choice == [mark.id for mark in in_order][: len(choice)]
    _next_turn(engine, "down-to-point")
    request = engine.prepare_request(START_MS + (LIFETIME_S + 1) * 1_000, LIFETIME_S)
    assert request.commit is not None and request.commit.cause == "cold-cache"
    assert set(choice) <= set(request.commit.applied_marks)
    after = engine.expected_tokens()
    assert after >= COLD_KEEP_SHARE * budget
    assert (
        after <= cold_point_tokens(engine._state, engine._policy.cold_commit_share)
        or not engine.view.cold_commit_choice()
    )
    assert request.record.classification != "unattributed"
    assert_reopens_identically(engine)


THREE_MARKS = [
    Mark("stale", "span", 0, 4),
    Mark("huge", "span", 4, 9),
    Mark("small", "span", 9, 11),
]
"""Three standing spans, stalest first, with :data:`SPAN_TOKENS` each."""
SPAN_TOKENS = {(0, 4): 3_000, (4, 9): 9_000, (9, 11): 1_500}
"""What each of :data:`THREE_MARKS` covers in the window, in estimated tokens."""


@pytest.mark.parametrize(
    ("fresh_start", "held_start", "keep", "expected"),
    [
        # 16,000 - 3,000 leaves 13,000, still over the point; the huge mark then leaves
        # 4,000, at least the keep: taken, and 4,000 is under the point: done.
        (12, None, 3_000, ["stale", "huge"]),
        # The huge mark would leave 4,000 < 5,000: passed over, the small one lands instead.
        (12, None, 5_000, ["stale", "small"]),
        # A pinned span (held raw) and one reaching into the fresh tail never land.
        (10, 0, 3_000, ["huge"]),
    ],
)
def test_the_cold_choice_stops_at_the_point_and_passes_over_a_mark_below_the_keep(
    fresh_start: int, held_start: int | None, keep: int, expected: list[str]
) -> None:
    chosen = cold_commit_marks(
        THREE_MARKS,
        fresh_start=fresh_start,
        held_raw=lambda start, end: start == held_start,
        range_tokens=lambda start, end: SPAN_TOKENS[(start, end)],
        occupancy=16_000,
        down_to=5_000,
        keep_at_least=keep,
    )
    assert chosen == expected


def test_a_changed_host_head_is_a_cold_cache_within_the_lifetime(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    assert engine.prepare_request(START_MS + 1_000, LIFETIME_S, "head-1").commit is None
    _next_turn(engine, "same")
    assert engine.prepare_request(START_MS + 2_000, LIFETIME_S, "head-1").commit is None
    _next_turn(engine, "changed")
    request = engine.prepare_request(START_MS + 3_000, LIFETIME_S, "head-2")
    assert request.commit is not None and request.commit.cause == "cold-cache"
    assert engine._state.last_host_head == "head-2"
    assert request.record.classification != "unattributed"
    assert_reopens_identically(engine)


def test_an_unknown_host_head_on_either_side_is_never_a_reset(tmp_path: Path) -> None:
    engine = _engine(tmp_path)  # its first request passed no head
    _next_turn(engine, "first-head")
    assert engine.prepare_request(START_MS + 1_000, LIFETIME_S, "head-1").commit is None
    _next_turn(engine, "no-head")
    assert engine.prepare_request(START_MS + 2_000, LIFETIME_S, None).commit is None
    assert engine._state.last_host_head is None
    _next_turn(engine, "head-again")
    assert engine.prepare_request(START_MS + 3_000, LIFETIME_S, "head-2").commit is None
    assert engine.view.commit_count == 0


@pytest.mark.parametrize("from_checkpoint", [False, True])
def test_the_logged_host_head_survives_a_reopen(tmp_path: Path, from_checkpoint: bool) -> None:
    engine = _engine(tmp_path)
    engine.prepare_request(START_MS + 1_000, LIFETIME_S, "head-1")
    if from_checkpoint:
        checkpoint.write(engine._state)  # the reopen starts from it, not from the whole log
    engine.close()
    if not from_checkpoint:
        set_checkpoint_aside(engine.state_dir)  # the one the close wrote: rebuilt from the log
    reopened = reopen(engine)
    try:
        assert reopened._state.last_host_head == "head-1"
        assert reopened.view.checkpoint_problem is None
        assert (reopened.state_dir / checkpoint.CHECKPOINT_NAME).is_file() == from_checkpoint
        _next_turn(reopened, "after-reopen")
        request = reopened.prepare_request(START_MS + 2_000, LIFETIME_S, "head-2")
        assert request.commit is not None and request.commit.cause == "cold-cache"
        assert_reopens_identically(reopened)
    finally:
        reopened.close()


@pytest.mark.parametrize(
    ("head", "named"),
    [("", "non-empty"), (7, "non-empty"), ("x" * 129, "128"), ("tab\there", "printable")],
)
def test_a_bad_host_head_is_refused_and_changes_nothing(
    tmp_path: Path, head: object, named: str
) -> None:
    engine = Engine.open(tmp_path / "state", small_options(), CharCounter())
    engine.append(SessionBuilder().user("hello"))
    with unchanged(engine), pytest.raises(EngineError, match=named):
        engine.prepare_request(START_MS, LIFETIME_S, head)  # type: ignore[arg-type]
