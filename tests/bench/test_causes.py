"""Uncached input split by cause: hand-computed requests, and the split adds up on real traces."""

from __future__ import annotations

import pytest

from pifold_agent.pricing.prefix_cache import Bill, PromptPart
from pifold_bench.causes import UncachedSplit, side_call_split, split_request
from pifold_bench.figures import arm_figures
from pifold_bench.prepare import BenchSettings
from pifold_bench.run import bench_trace
from tests.conftest import TRACES as BUNDLED


def _parts(*spec: tuple[str, int]) -> tuple[PromptPart, ...]:
    return tuple(PromptPart(digest, tokens) for digest, tokens in spec)


def _bill(fresh: int, read: int, write: int = 0) -> Bill:
    return Bill(fresh, read, write, 10, 0.0, False)


PREVIOUS = _parts(("head", 1_000), ("a", 2_000), ("b", 3_000))


def test_a_warm_append_pays_only_for_what_is_new() -> None:
    current = (*PREVIOUS, PromptPart("c", 500))
    split = split_request(PREVIOUS, current, _bill(fresh=500, read=6_000), host_reset=False)
    assert split == UncachedSplit(appended=500)


def test_a_cold_append_re_sends_the_old_prefix_as_expired() -> None:
    current = (*PREVIOUS, PromptPart("c", 500))
    split = split_request(PREVIOUS, current, _bill(fresh=6_500, read=0), False, warm=False)
    assert split == UncachedSplit(appended=500, expired=6_000)


def test_a_commit_pays_from_the_first_changed_message() -> None:
    # "b" became a 200-token placeholder; the cache still holds head and a.
    current = _parts(("head", 1_000), ("a", 2_000), ("fold", 200), ("c", 300))
    split = split_request(PREVIOUS, current, _bill(fresh=500, read=3_000), host_reset=False)
    # Everything after the shared prefix lies within what the previous request sent (6,000).
    assert split == UncachedSplit(rewrite=500)


def test_a_commit_that_grows_the_request_splits_rewrite_and_append() -> None:
    current = _parts(("head", 1_000), ("fold", 200), ("c", 6_000))
    split = split_request(PREVIOUS, current, _bill(fresh=6_200, read=1_000), host_reset=False)
    # Positions 1,000 to 6,000 were sent before (rewritten); 6,000 to 7,200 are new.
    assert split == UncachedSplit(rewrite=5_000, appended=1_200)


def test_a_warm_rewrite_that_a_breakpoint_cache_cannot_serve_is_rewrite_not_expiry() -> None:
    current = _parts(("head", 1_000), ("a", 2_000), ("b cleared", 100))
    bill = _bill(fresh=2_100, read=1_000)
    assert split_request(PREVIOUS, current, bill, False, warm=True) == UncachedSplit(rewrite=2_100)
    # The same miss after a long pause is the pause's doing, the rewritten bytes included:
    # what they replace would have been re-sent regardless.
    assert split_request(PREVIOUS, current, bill, False, warm=False) == UncachedSplit(expired=2_100)


def test_a_host_prefix_reset_re_sends_everything_behind_the_new_head() -> None:
    current = _parts(("head 2", 1_000), ("a", 2_000), ("b", 3_000), ("c", 100))
    split = split_request(PREVIOUS, current, _bill(fresh=6_100, read=0), host_reset=True)
    assert split == UncachedSplit(reset=6_000, appended=100)


def test_anthropic_cache_writes_count_as_uncached() -> None:
    current = (*PREVIOUS, PromptPart("c", 500))
    split = split_request(PREVIOUS, current, _bill(fresh=0, read=6_000, write=500), False)
    assert split == UncachedSplit(appended=500)


def test_a_side_call_is_all_rewrite_and_the_first_request_all_appended() -> None:
    assert side_call_split(_bill(fresh=4_000, read=0)) == UncachedSplit(rewrite=4_000)
    split = split_request((), PREVIOUS, _bill(fresh=6_000, read=0), host_reset=False)
    assert split == UncachedSplit(appended=6_000)


def test_the_split_adds_up_to_the_uncached_input_of_every_arm() -> None:
    trace = BUNDLED / "pi-v3-paradocs" / "session.jsonl"
    if not trace.exists():
        pytest.skip("the shared traces are not beside this checkout")
    settings = BenchSettings(budget=30_000)
    prepared, runs = bench_trace(trace, settings)
    figures = {name: arm_figures(run, 30_000, len(prepared.values)) for name, run in runs.items()}
    for figure in figures.values():
        assert figure.uncached_by_cause.total == figure.uncached_input, figure.arm
    fold = figures["fold"]
    immediate = figures["fold-immediate"]
    # The first request of a session is appended whole; fold-immediate rewrites every mark.
    assert fold.uncached_by_cause.appended > 0
    assert immediate.uncached_by_cause.rewrite > fold.uncached_by_cause.rewrite
