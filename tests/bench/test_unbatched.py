"""``fold-unbatched``: fold's band and marks, landed one mark per request."""

from __future__ import annotations

from pathlib import Path

from pifold_bench.arms import UNBATCHED_CAUSE, EngineArm, UnbatchedArm, unbatched_options
from pifold_bench.run import ArmRun, make_arm, run_arm
from pifold_core.options import Thresholds
from tests.bench.conftest import COUNTER, prepared
from tests.bench.helpers import Session

BUDGET = 30_000


def uncached(run: ArmRun) -> int:
    return sum(bill.fresh_input + bill.cache_write for bill in run.bills)


def drains(requests: list[int]) -> list[list[int]]:
    """``requests`` cut into runs of consecutive numbers."""
    runs: list[list[int]] = []
    for number in requests:
        if runs and runs[-1][-1] + 1 == number:
            runs[-1].append(number)
        else:
            runs.append([number])
    return runs


def test_the_engine_band_is_out_of_reach_and_the_size_rules_are_the_defaults() -> None:
    options = unbatched_options(100_000)
    defaults = Thresholds()
    assert (options.thresholds.max_target, options.thresholds.min_target) == (0.99, 0.98)
    assert options.thresholds.consolidate_after == defaults.consolidate_after
    assert options.thresholds.min_fold_chars == defaults.min_fold_chars
    assert not options.pre_commit_notice


def test_unbatched_lands_one_mark_per_request_between_the_band_edges(tmp_path: Path) -> None:
    # Results of about 1,500 tokens: each mark covers one batch, so a drain takes a few
    # requests, and a fold of one mark outweighs what one request adds.
    entries = Session().long_turn(batches=40, characters=6_000)
    trace = prepared(entries, budget=BUDGET, planted=4)
    arm = make_arm("fold-unbatched", tmp_path / "unbatched", trace, BUDGET, COUNTER)
    assert isinstance(arm, UnbatchedArm) and arm.name == "fold-unbatched"
    run = run_arm(arm, trace)
    fold = run_arm(EngineArm(tmp_path / "fold", BUDGET, COUNTER), trace)

    landed = [number for number, _ in arm.landed]
    assert len(landed) == len(set(landed)) >= 4  # never two marks before one request
    # Every commit is the arm's, one requested mark each, landed in that commit.
    commits = arm.engine._state.commits
    assert [commit.cause for commit in commits] == [UNBATCHED_CAUSE] * len(landed)
    assert all(
        mark in commit.applied_marks for commit, (_, mark) in zip(commits, arm.landed, strict=True)
    )
    assert run.events == len(landed)
    # Each request that landed a mark is an attributed rewrite; every other one appends.
    for number, verdict in enumerate(run.classes):
        assert verdict == ("attributed" if number in landed else "append"), number
    assert "unattributed" not in run.classes

    low, high = Thresholds().min_target * BUDGET, Thresholds().max_target * BUDGET
    runs = drains(landed)
    assert len(runs) >= 2 and all(len(requests) >= 2 for requests in runs)
    for requests in runs:
        # Draining starts where fold commits, at the band's upper edge...
        assert run.windows[requests[0] - 1] < high
        # ...goes on while the window is above the lower edge, and stops at or under it.
        assert all(run.windows[number] > low for number in requests[:-1])
        assert run.windows[requests[-1]] <= low
    assert fold.first_event_request == run.first_event_request == runs[0][0]

    assert run.recall is not None and run.recall.lost_values == []
    assert max(run.windows) <= BUDGET
    # The same folds in one rewrite each cost more uncached input than landed together.
    assert 0 < fold.classes.count("attributed") < run.classes.count("attributed")
    assert uncached(fold) < uncached(run)


def test_a_span_mark_lands_with_the_tool_marks_inside_it(tmp_path: Path) -> None:
    # Larger results: the runtime lays a tool mark per batch and a span mark over several,
    # and the stalest mark is the span (it starts first and ends last).
    entries = Session().long_turn(batches=24, characters=10_000)
    trace = prepared(entries, budget=BUDGET, planted=4)
    arm = UnbatchedArm(tmp_path / "unbatched", BUDGET, COUNTER)
    run = run_arm(arm, trace)
    assert arm.landed and "unattributed" not in run.classes
    landed = [number for number, _ in arm.landed]
    assert len(landed) == len(set(landed))
    assert all(run.classes[number] == "attributed" for number in landed)
    assert any(len(commit.applied_marks) > 1 for commit in arm.engine._state.commits)
    for commit, (_, mark) in zip(arm.engine._state.commits, arm.landed, strict=True):
        # The requested mark is the outermost one: the last the commit applied.
        assert commit.applied_marks[-1] == mark
    assert run.recall is not None and run.recall.lost_values == []
