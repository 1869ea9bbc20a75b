"""Every arm on every shared trace: the promises of the benchmark's ``fold`` arm."""

from __future__ import annotations

from pathlib import Path

import pytest

from pifold_bench.figures import arm_figures
from pifold_bench.run import ARM_NAMES, BenchSettings, bench_trace, check_model
from pifold_core.tokens import TiktokenCounter
from tests.conftest import shared_trace_files

TRACES = shared_trace_files()
BUDGET = 100_000


@pytest.mark.skipif(not TRACES, reason="../shared/traces is not present")
@pytest.mark.parametrize("trace", TRACES, ids=[path.parent.name for path in TRACES])
def test_every_arm_on_a_real_trace(trace: Path) -> None:
    counter = TiktokenCounter()
    prepared, runs = bench_trace(trace, BenchSettings(budget=BUDGET), counter)
    assert list(runs) == list(ARM_NAMES)
    figures = {name: arm_figures(run, BUDGET, len(prepared.values)) for name, run in runs.items()}
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
    check = check_model(prepared, counter)
    if prepared.calibration.checked_requests:
        assert check is not None and check.within_tolerance
