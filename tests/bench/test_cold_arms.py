"""The engine arms on a session with a pause past the cache's lifetime: ``fold`` lands a
cold-cache commit on the free re-send, ``fold-no-cold`` waits for the band, ``fold-unbatched``
starts its drain at the same request."""

from __future__ import annotations

from pathlib import Path

from pifold_bench.arms import UnbatchedArm
from pifold_bench.prepare import PreparedTrace
from pifold_bench.run import ArmRun, make_arm, run_arm
from pifold_core.entries import Entry
from tests.bench.conftest import COUNTER, prepared
from tests.bench.helpers import Session

BUDGET = 30_000
BEFORE_PAUSE = 12
"""Requests before the pause; the request after it is number 12 (0-based)."""


def paused_session(pause_ms: int) -> list[Entry]:
    """Twelve reads of about 1,600 tokens (the window near 0.6 of the budget), a pause, four
    more reads: the pause never carries the window to the band's top (0.8) by itself."""
    session = Session()
    session.user("Fix the failing tests in src/ (ticket ABC-1234).")
    for number in range(BEFORE_PAUSE + 4):
        if number == BEFORE_PAUSE:
            session.clock += pause_ms
            session.user("Back again: carry on from where you were.")
        call = session.assistant(f"Step {number}: reading the next module.", calls=1)
        session.results(call, 6_000, seed=number)
    session.assistant("Done: all tests pass.")
    return session.entries


def run(name: str, trace: PreparedTrace, folder: Path, share: float = 0.4) -> ArmRun:
    arm = make_arm(name, folder / name, trace, BUDGET, COUNTER, cold_commit_share=share)
    try:
        return run_arm(arm, trace)
    finally:
        arm.close()


def rewrites(result: ArmRun) -> list[int]:
    return [number for number, verdict in enumerate(result.classes) if verdict != "append"]


def test_fold_commits_on_the_cold_request_and_fold_no_cold_waits(tmp_path: Path) -> None:
    trace = prepared(paused_session(2 * 3_600_000), BUDGET, planted=4)
    # gpt-5.4's automatic cache: 600 s, which the arm passes to the engine with each request.
    assert trace.prices.rules.lifetime_seconds == 600
    fold = run("fold", trace, tmp_path)
    no_cold = run("fold-no-cold", trace, tmp_path)
    for result in (fold, no_cold):
        assert "unattributed" not in result.classes
        assert result.recall is not None and result.recall.count("lost") == 0
    assert fold.declared_causes == ["commit 1 (cold-cache)"]
    assert rewrites(fold) == [BEFORE_PAUSE]
    assert fold.windows[BEFORE_PAUSE] < fold.windows[BEFORE_PAUSE - 1] / 2
    # Without the rule the same marks wait for the band's top, a few warm requests later.
    assert no_cold.declared_causes == ["commit 1 (threshold)"]
    assert rewrites(no_cold)[0] > BEFORE_PAUSE
    # Up to the pause the two arms are one run.
    assert fold.bills[:BEFORE_PAUSE] == no_cold.bills[:BEFORE_PAUSE]
    # The cold commit rode on a re-send that was coming anyway: nothing on it is a rewrite's.
    assert fold.uncached_by_cause.rewrite < no_cold.uncached_by_cause.rewrite


def test_unbatched_starts_its_drain_on_the_cold_request(tmp_path: Path) -> None:
    trace = prepared(paused_session(2 * 3_600_000), BUDGET, planted=4)
    arm = make_arm("fold-unbatched", tmp_path / "unbatched", trace, BUDGET, COUNTER)
    assert isinstance(arm, UnbatchedArm)
    result = run_arm(arm, trace)
    arm.close()
    landed = [number for number, _ in arm.landed]
    # The first mark lands on the cold request, as fold's batch does; the rest one per request.
    assert landed[0] == BEFORE_PAUSE
    assert landed == list(range(BEFORE_PAUSE, BEFORE_PAUSE + len(landed)))
    assert len(landed) >= 2
    assert rewrites(result) == landed
    assert "unattributed" not in result.classes


def test_a_pause_within_the_lifetime_or_under_the_cold_point_changes_nothing(
    tmp_path: Path,
) -> None:
    warm = prepared(paused_session(5 * 60_000), BUDGET, planted=4)  # 300 s < 600 s
    assert (
        run("fold", warm, tmp_path / "warm").bills
        == run("fold-no-cold", warm, tmp_path / "warm").bills
    )
    cold = prepared(paused_session(2 * 3_600_000), BUDGET, planted=4)
    # The window before the pause is near 0.6 of the budget: a cold point of 0.7 is not reached.
    high_point = run("fold", cold, tmp_path / "high", share=0.7)
    assert high_point.bills == run("fold-no-cold", cold, tmp_path / "high").bills
    assert not any("cold-cache" in cause for cause in high_point.declared_causes)
