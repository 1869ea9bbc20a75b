"""What a replay's report says it broke: the exit-1 reasons, in the words both demos share."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from pifold_agent.replay_report import (
    MeasurementFigures,
    ReplayReport,
    WindowFigures,
    broken_promises,
    requests_over_budget,
)

CLEAN = ReplayReport(
    trace="trace.jsonl",
    format="pi",
    entries=40,
    requests=20,
    appends=18,
    rewrites=2,
    unattributed=0,
    commits=2,
    folds={"turn": 3},
    verified_folds=3,
    failed_folds=0,
    skipped_lines=0,
    window=WindowFigures(12_000, 11_000, 8_000.0, 6_000, 9_000, 2_000, 10_500),
    measurement=MeasurementFigures(True, 4, 16, 1.02, "measured"),
    clipped=0,
    pins=0,
    marks_pending=0,
    consolidations=0,
    commit_sizes=[2, 1],
    overflows=0,
    over_budget=0,
    request_tokens=[1_000] * 20,
)


def test_a_clean_replay_broke_nothing_and_its_json_leaves_out_the_sizes() -> None:
    assert broken_promises(CLEAN) is None
    assert CLEAN.append_share == 0.9
    data = CLEAN.to_json()
    assert "request_tokens" not in data
    assert data["window"]["peak"] == 11_000 and data["measurement"]["reading"] == "measured"


def test_each_broken_promise_is_named_in_one_line() -> None:
    broken = replace(CLEAN, unattributed=1, failed_folds=2, over_budget=3)
    assert broken_promises(broken) == (
        "1 unattributed rewrite(s); 2 fold(s) failed verification; 3 request(s) over the "
        "budget even after overflow recovery (peak 11,000 > budget 12,000 tokens)"
    )


@given(st.lists(st.integers(min_value=0, max_value=20_000), max_size=30))
def test_requests_over_budget_are_those_above_it(sizes: list[int]) -> None:
    assert requests_over_budget(sizes, 12_000) == len([size for size in sizes if size > 12_000])
