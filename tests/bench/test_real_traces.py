"""Every arm on every shared trace: the promises of the benchmark's ``fold`` arm.

Each trace is benchmarked once (all arms, :mod:`tests.bench.shared_runs`) and shared by the
tests below and by ``test_verdict``, so the real traces cost one run of every arm.
"""

from __future__ import annotations

from pathlib import Path

from tests.bench.shared_runs import benched, every_trace


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
