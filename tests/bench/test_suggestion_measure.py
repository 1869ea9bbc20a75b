"""The suggestion measure's arithmetic on a made-up session whose answer is known, and the
line the report prints."""

from __future__ import annotations

from pathlib import Path

from pifold_bench.arms import EngineArm
from pifold_bench.suggestion_measure import (
    HORIZON,
    SuggestionMeasure,
    SuggestionPoint,
    measure,
    watch_suggestions,
)
from pifold_core.entries import Entry, text_entry
from tests.core.builders import CharCounter, small_options
from tests.core.search.test_suggestions import session_naming_a_folded_definition


def _session() -> list[Entry]:
    texts = [
        ("user", "Start."),
        ("user", "def alpha_loader(): pass"),
        ("user", "BETA_CONSTANT = 1"),
        ("user", "gamma_value and shared_name"),
        ("user", "delta_thing and shared_name"),
        ("assistant", "Calling alpha_loader, then shared_name."),  # position 5: uses both
        ("user", "ok"),
        ("assistant", "Nothing named here."),  # position 7
    ]
    return [text_entry(f"e{number}", kind, text) for number, (kind, text) in enumerate(texts)]  # type: ignore[arg-type]


def test_a_suggested_fold_whose_own_name_is_used_later_counts() -> None:
    points = [SuggestionPoint(5, ((1,),), ((1,), (2,)))]
    result = measure(_session(), points)
    # alpha_loader is only in entry 1 and used at entry 5: the suggestion counts. A random
    # fold of the pool is entry 1 half the time; entry 2's BETA_CONSTANT is never used.
    assert (result.commits, result.folds, result.later, result.used) == (1, 1, 2, 1)
    assert 0.0 < result.used_at_random < 1.0


def test_a_name_held_outside_the_suggested_folds_does_not_count() -> None:
    # shared_name is used at entry 5, but entry 4 holds it too: not found only in entry 3.
    points = [SuggestionPoint(5, ((3,),), ((3,),))]
    assert measure(_session(), points) == SuggestionMeasure(1, 1, 2, 0, 0.0)
    # Both folds together hold it alone: the pair counts, and so does a random pair.
    points = [SuggestionPoint(5, ((3,), (4,)), ((3,), (4,)))]
    assert measure(_session(), points) == SuggestionMeasure(1, 2, 2, 1, 1.0)


def test_only_later_entries_within_the_horizon_count() -> None:
    # From position 6 on nobody names alpha_loader again.
    points = [SuggestionPoint(6, ((1,),), ((1,),))]
    assert measure(_session(), points) == SuggestionMeasure(1, 1, 1, 0, 0.0)
    far = [*_session()[:5], *(text_entry(f"pad{n}", "user", "pad") for n in range(HORIZON))]
    far.append(text_entry("late", "assistant", "alpha_loader at last"))
    assert measure(far, [SuggestionPoint(5, ((1,),), ((1,),))]).used == 0


def test_the_report_line() -> None:
    line = SuggestionMeasure(4, 12, 30, 3, 1.25).describe()
    assert line == (
        "suggestions at a commit: 4 commits suggested 12 folds; 3 of the 30 model messages "
        "after them used a name found only in those folds (random folds of the same count: 1.2)"
    )
    assert SuggestionMeasure(0, 0, 0, 0, 0.0).describe().endswith("no commit had a fold to suggest")


def test_the_watcher_records_each_commit_as_trace_positions(tmp_path: Path) -> None:
    entries = session_naming_a_folded_definition().entries
    arm = EngineArm(tmp_path / "state", 200_000, CharCounter(), options=small_options(200_000))
    watcher = watch_suggestions(arm, entries)
    assert watcher is not None
    for entry in entries:
        arm.append(entry)
    watcher.after_request(len(entries))
    assert watcher.points == []  # no commit yet: nothing asked
    arm.engine.commit_now()
    watcher.after_request(len(entries))
    watcher.after_request(len(entries))  # the same commit is asked about once
    (point,) = watcher.points
    assert point.position == len(entries)
    assert 2 in point.suggested[0]  # the result that defines the name the tail mentions
    assert point.suggested[0] in point.pool
    assert watcher.measure().commits == 1
    arm.engine.close()
