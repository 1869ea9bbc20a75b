"""The benchmark's acceptance criterion (issue 12), on all seven shared traces at 100k.

1. With the same marks and band, landing them in one commit (``fold``) reads no more uncached
   input than landing one per request (``fold-unbatched``), strictly less wherever a commit
   lands.
2. Against ``fold-immediate``, the uncached input caused by rewrites is lower for ``fold``.
3. With cold-cache commits, ``fold`` reads less whole-session uncached input than
   ``fold-immediate``.

Lines 1 and 2 hold on every trace. Line 3 does not on three traces (claude-code,
mini-swe-agent, pi-mono), and those cases are strict expected failures: each one fails the
suite if it starts to hold, so the README's account of it has to be updated. Why it fails is
asserted on every trace: leave out what was re-sent after a cache expiry or a host prefix
reset, and ``fold`` reads less than ``fold-immediate`` everywhere. The rest of the gap is
``fold-immediate``'s smaller window being re-sent after its caches went cold.

Every arm runs once per trace, shared with ``test_real_traces`` (:mod:`tests.bench.shared_runs`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bench.shared_runs import TRACES, benched, benched_runs, every_trace, needs_traces

SHORTFALL = {"claude-code-session-share", "mini-swe-agent-deepseek", "pi-mono"}
"""Traces on which line 3 does not hold (see the README's bench section for the split)."""


def line_three_cases() -> list[object]:
    cases: list[object] = []
    for path in TRACES:
        name = path.parent.name
        if name in SHORTFALL:
            reason = "fold-immediate's smaller window is cheaper to re-send after expiry/reset"
            cases.append(
                pytest.param(path, id=name, marks=pytest.mark.xfail(strict=True, reason=reason))
            )
        else:
            cases.append(pytest.param(path, id=name))
    return cases


@needs_traces
@every_trace
def test_one_commit_never_reads_more_than_one_mark_per_request(trace: Path) -> None:
    _, figures, _ = benched(trace)
    fold, unbatched = figures["fold"], figures["fold-unbatched"]
    for arm in (fold, unbatched):
        assert arm.unattributed == 0
        assert arm.recall.lost == 0
    assert fold.uncached_input <= unbatched.uncached_input
    if fold.events:
        assert fold.uncached_input < unbatched.uncached_input
        assert unbatched.events > fold.events
    else:
        # Nothing to land: the two arms are one run, request for request.
        assert unbatched.events == 0
        assert unbatched.uncached_input == fold.uncached_input


@needs_traces
@every_trace
def test_fold_rewrites_cost_less_than_landing_every_mark_at_once(trace: Path) -> None:
    _, figures, _ = benched(trace)
    fold, immediate = figures["fold"], figures["fold-immediate"]
    assert immediate.attributed > 0  # every shared trace gives fold-immediate something to land
    assert fold.uncached_by_cause.rewrite < immediate.uncached_by_cause.rewrite


@needs_traces
@pytest.mark.parametrize("trace", line_three_cases())
def test_with_cold_commits_fold_reads_less_than_fold_immediate(trace: Path) -> None:
    _, figures, _ = benched(trace)
    assert figures["fold"].uncached_input < figures["fold-immediate"].uncached_input


@needs_traces
@every_trace
def test_without_expiry_and_resets_fold_reads_less_than_fold_immediate(trace: Path) -> None:
    # What line 3 comes down to: the appended material and the rewrites, the part of the
    # uncached input the commit policy decides; re-sends after cold caches are the rest.
    _, figures, _ = benched(trace)
    fold = figures["fold"].uncached_by_cause
    immediate = figures["fold-immediate"].uncached_by_cause
    assert fold.appended + fold.rewrite < immediate.appended + immediate.rewrite
    for split, arm in ((fold, figures["fold"]), (immediate, figures["fold-immediate"])):
        assert split.total == arm.uncached_input


@needs_traces
def test_cold_cache_commits_fire_in_the_bench_and_only_where_turned_on() -> None:
    cold_traces = 0
    for trace in TRACES:
        _, runs, _ = benched_runs(trace)
        assert not any("cold-cache" in cause for cause in runs["fold-no-cold"].declared_causes)
        fold_cold = [cause for cause in runs["fold"].declared_causes if "(cold-cache)" in cause]
        cold_traces += bool(fold_cold)
        if not fold_cold:
            # Without a cold commit the rule changed nothing: the same run as fold-no-cold.
            assert runs["fold"].bills == runs["fold-no-cold"].bills
    # Claude Code's pauses past five minutes and pi-mono's idle gaps find the cache cold
    # with the window past the cold point.
    assert cold_traces >= 2
