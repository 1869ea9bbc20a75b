"""Cold-cache commits (issue 12): a request that finds the cache expired lands standing marks.

Each session is checked for zero unattributed rewrites, lossless folds and an identical
reopen; the request's time and the lifetime are logged, so a reopened engine decides alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_core.engine import Engine, EngineError
from pifold_core.runway import cache_is_cold
from tests.core.builders import CharCounter, SessionBuilder, small_options
from tests.core.engine_checks import (
    assert_reopens_identically,
    pending_engine,
    reopen,
    unchanged,
)

LIFETIME_S = 300
START_MS = 1_800_000_000_000
BUDGET = 12_000
"""Six pending chapters fill about 58 % of it: past the cold point, short of maxTarget."""


def _engine(path: Path, cold: bool = True) -> Engine:
    engine, _ = pending_engine(path, 6, small_options(budget=BUDGET, min_fold_chars=2_000))
    engine.cold_cache_commits = cold
    assert engine.cold_commit_share * BUDGET <= engine.expected_tokens()
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
    pending = set(engine.marks)
    before = engine.expected_tokens()
    _next_turn(engine, "late")
    request = engine.prepare_request(START_MS + (LIFETIME_S + 1) * 1_000, LIFETIME_S)
    assert request.commit is not None and request.commit.cause == "cold-cache"
    assert set(request.commit.applied_marks) <= pending and request.commit.applied_marks
    assert engine.expected_tokens() < before
    assert engine.last_commit is not None and engine.last_commit.cause == "cold-cache"
    assert request.record.classification != "unattributed"
    assert_reopens_identically(engine)


def test_a_request_within_the_lifetime_does_not_commit(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    _next_turn(engine, "warm")
    request = engine.prepare_request(START_MS + LIFETIME_S * 1_000, LIFETIME_S)
    assert request.commit is None and engine.commit_count == 0
    assert_reopens_identically(engine)


def test_without_a_clock_or_a_lifetime_the_engine_never_guesses_an_expiry(
    tmp_path: Path,
) -> None:
    engine = _engine(tmp_path)
    _next_turn(engine, "noclock")
    assert engine.prepare_request(None, LIFETIME_S).commit is None
    assert engine.prepare_request(START_MS + 10**9, None).commit is None
    assert engine.commit_count == 0
    assert not cache_is_cold(None, START_MS, LIFETIME_S)


def test_the_flag_turns_cold_commits_off(tmp_path: Path) -> None:
    engine = _engine(tmp_path, cold=False)
    _next_turn(engine, "off")
    request = engine.prepare_request(START_MS + 3_600_000, LIFETIME_S)
    assert request.commit is None and engine.commit_count == 0


def test_below_the_cold_point_a_cold_cache_commits_nothing(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    engine.cold_commit_share = 0.9  # above the occupancy: too early to give detail up
    _next_turn(engine, "early")
    request = engine.prepare_request(START_MS + 3_600_000, LIFETIME_S)
    assert request.commit is None and engine.commit_count == 0


def test_the_logged_clock_survives_a_reopen(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    reopened = reopen(engine)
    try:
        assert reopened.last_request_ms == START_MS
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
