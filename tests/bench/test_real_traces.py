"""Every arm on every shared trace: the promises of the benchmark's ``fold`` arm.

Each trace is benchmarked once (all arms) and shared by the tests below, so the real traces
cost one run of every arm.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from pifold_bench.calibration import ModelCheck
from pifold_bench.figures import ArmFigures, arm_figures
from pifold_bench.run import ARM_NAMES, BenchSettings, PreparedTrace, bench_trace, check_model
from pifold_core.tokens import TiktokenCounter
from tests.conftest import shared_trace_files

TRACES = shared_trace_files()
BUDGET = 100_000
COUNTER = TiktokenCounter()

needs_traces = pytest.mark.skipif(not TRACES, reason="../shared/traces is not present")
every_trace = pytest.mark.parametrize("trace", TRACES, ids=[path.parent.name for path in TRACES])


@cache
def benched(trace: Path) -> tuple[PreparedTrace, dict[str, ArmFigures], ModelCheck | None]:
    """Every arm over ``trace`` at :data:`BUDGET`, its figures, and the model check."""
    prepared, runs = bench_trace(trace, BenchSettings(budget=BUDGET), COUNTER)
    assert list(runs) == list(ARM_NAMES)
    figures = {name: arm_figures(run, BUDGET, len(prepared.values)) for name, run in runs.items()}
    return prepared, figures, check_model(prepared, COUNTER)


@needs_traces
@every_trace
def test_every_arm_on_a_real_trace(trace: Path) -> None:
    prepared, figures, check = benched(trace)
    requests = len(prepared.request_times)
    for arm in figures.values():
        assert arm.requests == requests
        assert arm.appends + arm.attributed == requests
        assert arm.unattributed == 0
    fold = figures["fold"]
    assert fold.recall.lost == 0
    assert fold.near_zero == 0
    assert fold.over_budget == 0
    assert figures["none"].recall.visible_raw == len(prepared.values)
    # Every fold request is at most the linear history, so its tokens can only be fewer.
    assert fold.total_tokens <= figures["none"].total_tokens
    if prepared.calibration.checked_requests:
        assert check is not None and check.within_tolerance


@needs_traces
@every_trace
def test_batching_reads_less_uncached_input_than_landing_marks_one_at_a_time(trace: Path) -> None:
    _, figures, _ = benched(trace)
    fold, unbatched = figures["fold"], figures["fold-unbatched"]
    immediate = figures["fold-immediate"]
    for arm in (fold, unbatched):
        assert arm.unattributed == 0
        assert arm.recall.lost == 0
        assert arm.near_zero == 0
    # The same marks at the same moments: landed together, never dearer than one by one,
    # and strictly cheaper wherever there was something to land.
    assert fold.uncached_input <= unbatched.uncached_input
    if fold.events:
        assert fold.uncached_input < unbatched.uncached_input
        assert unbatched.events > fold.events
    else:
        assert unbatched.events == 0
    # Against marks landed as they are laid, the rewrites themselves are always cheaper;
    # over the whole session the smaller window of fold-immediate can win (see the README).
    if immediate.attributed:
        assert fold.rewrite_and_summary_tokens < immediate.rewrite_and_summary_tokens
