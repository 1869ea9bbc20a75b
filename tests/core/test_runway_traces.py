"""The runway rule on every shared trace at 30k and 60k (issue 12, "what must be true").

Each trace is replayed once per budget (module fixture) with its own clock and cache lifetime,
through :func:`pifold_bench.runway_audit.audit_replay`, which keeps what the policy saw at
every request. Asserted on each:

- no two threshold commits less than the runway apart: the inflow between consecutive ones
  (growth of expected occupancy between requests, what commits removed not counted) is at
  least ``runway_tokens`` (half the band's width), and every threshold commit bought runway
  (a request past the budget that a threshold commit cannot help gets overflow recovery,
  attributed ``overflow``: at 30k the Claude Code, Codex and Pi v3 traces' floors do that);
- every request where a threshold commit was held back leaves ``status`` naming that floor,
  and a budget that would work: one whose runway target holds the occupancy it would leave;
- zero unattributed rewrites, and every fold peeks back byte for byte.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pifold_agent.bundled_traces import bundled_traces
from pifold_bench.runway_audit import RunwayAudit, audit_replay
from pifold_core.runway import needed_after

TRACES = bundled_traces()
BUDGETS = (30_000, 60_000)
CASES = [(trace, budget) for trace in TRACES for budget in BUDGETS]


@pytest.fixture(scope="module")
def audits(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Path, int], RunwayAudit]:
    """One replay per trace and budget, shared by every assertion below."""
    folder = tmp_path_factory.mktemp("runway-traces")
    return {
        (trace, budget): audit_replay(trace, budget, folder / f"{index}-{budget}")
        for index, (trace, budget) in enumerate(CASES)
    }


def _ids() -> list[str]:
    return [f"{trace.parent.name}-{budget // 1_000}k" for trace, budget in CASES]


@pytest.mark.parametrize(("trace", "budget"), CASES, ids=_ids())
def test_threshold_commits_are_a_runway_apart(
    audits: dict[tuple[Path, int], RunwayAudit], trace: Path, budget: int
) -> None:
    audit = audits[(trace, budget)]
    for index, step in enumerate(audit.steps):
        if "threshold" in step.causes:
            assert step.before >= audit.options.max_tokens, index  # only at maxTarget
            assert step.after <= audit.needed_after, (index, step)  # only with runway
    for gap in audit.gaps():
        assert gap.bought_runway and gap.inflow >= audit.runway, gap


@pytest.mark.parametrize(("trace", "budget"), CASES, ids=_ids())
def test_every_held_back_commit_names_its_floor_and_a_budget_that_works(
    audits: dict[tuple[Path, int], RunwayAudit], trace: Path, budget: int
) -> None:
    audit = audits[(trace, budget)]
    for step in audit.floors():
        floor = step.floor
        assert floor is not None and step.status_floor == floor
        assert floor.needed_after == audit.needed_after < floor.expected_after
        assert floor.budget_that_works > budget
        wider = replace(audit.options, budget=floor.budget_that_works)
        assert needed_after(wider) >= floor.expected_after
        assert f"a budget of {floor.budget_that_works:,} would work" in floor.describe()
        assert "threshold" not in step.causes  # held back: nothing landed for it


@pytest.mark.parametrize(("trace", "budget"), CASES, ids=_ids())
def test_no_unattributed_rewrite_and_every_fold_verifies(
    audits: dict[tuple[Path, int], RunwayAudit], trace: Path, budget: int
) -> None:
    audit = audits[(trace, budget)]
    assert audit.steps, "the trace holds model requests"
    assert audit.unattributed == 0
    assert audit.failures == [] and audit.verified_folds == audit.folds


def test_the_traces_exercise_both_sides_of_the_rule(
    audits: dict[tuple[Path, int], RunwayAudit],
) -> None:
    # Not vacuous: some replays hold commits back for a floor, some land several a runway
    # apart, and the Claude Code trace's pauses commit on a cold cache.
    assert sum(len(audit.floors()) for audit in audits.values()) >= 10
    assert sum(len(audit.gaps()) for audit in audits.values()) >= 10
    claude = next(audit for (trace, _), audit in audits.items() if "claude-code" in str(trace))
    assert claude.cache_lifetime_s == 300
    assert sum(audit.commits("cold-cache") for audit in audits.values()) >= 5
